import AccountsSystem
import AccountsCore

/// zsh: an autoloadable `_accounts` that also works when sourced.
///
/// Candidates go to `compadd` as words (never with -Q, so zsh quotes what it inserts), and
/// nothing a name or the command line holds is evaluated: no eval, no `${(e)...}`, and every
/// expansion that reaches a command is quoted.
enum ZshCompletion {
  static func render(_ model: CompletionModel) -> String {
    var out = """
      #compdef accounts
      # zsh completion for accounts
      # Generated from the command table by `accounts completion zsh`; do not edit.
      # Install it as _accounts in a directory on $fpath (`make install` does) and run compinit,
      # or load it with `source <(accounts completion zsh)` after compinit.
      #
      # Names reach compadd as words, which zsh quotes when it inserts one; nothing from a name
      # or the command line is evaluated.


      """
    out += model.nextFunction
    out += """
      # Sets what may follow a command path, with descriptions. An argument kind ending in ...
      # takes every remaining word; "account|method" is an optional argument that a METHOD word
      # skips, so that word is the METHOD.
      _accounts_spec() {
        _accounts_subcommands=() _accounts_options=() _accounts_arguments=()
        case "$1" in

      """
    for node in model.nodes {
      out += "    \(shellQuoted(node.path)))\n"
      if !node.subcommands.isEmpty {
        out += "      _accounts_subcommands=(\n"
        for sub in node.subcommands {
          out += "        \(shellQuoted(describe(sub.name, sub.summary)))\n"
        }
        out += "      )\n"
      }
      if !node.arguments.isEmpty {
        let kinds = model.argumentKinds(node).map(shellQuoted).joined(separator: " ")
        out += "      _accounts_arguments=(\(kinds))\n"
      }
      if !node.options.isEmpty {
        out += "      _accounts_options=(\n"
        for option in node.options {
          out += "        \(shellQuoted(describe("--\(option.long)", option.help)))\n"
        }
        out += "      )\n"
      }
      out += "      ;;\n"
    }
    out += """
        esac
        _accounts_options+=(

      """
    for option in GlobalOptions.all {
      out += "    \(shellQuoted(describe("--\(option.long)", option.help)))\n"
    }
    out += """
        )
      }


      """
    out += model.optionKindFunction
    out += """
      # Succeeds for an HTTP method word, in any case (ASCII letters only, as the parser).
      _accounts_is_method() {
        [[ -n $1 && $1 != *[^a-zA-Z]* ]] || return 1
        case ${(U)1} in
          \(HTTPMethod.all.joined(separator: "|"))) return 0 ;;
        esac
        return 1
      }


      """
    out += CompletionModel.isNameFunction(
      why: """
        Anything else was not saved by accounts (a damaged or
        # planted file) and is not offered, as in the bash and fish scripts.
        """)
    out += """
      # Offers the names of a kind ($1), asking the accounts being completed ($2) with the
      # --backend typed so far ($3); for account-tag, the tags of the account typed earlier on
      # the line ($4); for the kinds of settings, those of the --adapter typed ($5), else of the
      # backend. Names come from the index and config (settings: from the adapter, loaded by
      # that program in a child); each line printed is one candidate, split at newlines only and
      # never expanded. zsh matches them against the word itself (so its matcher-list applies).
      # "account|method" offers both.
      _accounts_candidates() {
        local word line all
        local -a names arguments lines
        case "$1" in
          *'|'*)
            _accounts_candidates "${1%%'|'*}" "$2" "$3" "$4" "$5"
            _accounts_candidates "${1#*'|'}" "$2" "$3" "$4" "$5"
            return ;;
          directory) _files -/ ; return ;;
          file) _files ; return ;;

      """
    for kind in CompletionKind.allCases {
      guard let fixed = CompletionModel.fixedCandidates(kind) else { continue }
      out += "    \(kind.rawValue)) names=(\(fixed.joined(separator: " "))) ;;\n"
    }
    out += CompletionModel.completeWordArms
    out += """
          *) return 1 ;;
        esac
        if [[ -n $word ]]; then
          arguments=(__complete "$word")
          [[ -n $3 ]] && arguments+=(--backend "$3")
          [[ -n $5 && $1 == *setting ]] && arguments+=(--adapter "$5")
          [[ $1 == account-tag ]] && arguments+=(--account "$4")
          lines=("${(@f)$("$2" "${arguments[@]}" 2>/dev/null)}")
          # `accounts __complete` prints only names, so one check over all the lines at once
          # accepts them whole: no zsh work per name. Only when some line fails (a program that
          # printed something else) is each line checked on its own.
          all=$'\\n'${(pj:\\n:)lines}$'\\n'
          if [[ $all != *[^$'\\n'[:alnum:]._@+-]* && $all != *$'\\n'[-$'\\n']* ]]; then
            names=("${lines[@]}")
          else
            for line in "${lines[@]}"; do
              _accounts_is_name "$line" && names+=("$line")
            done
          fi
        fi
        # KEY= for backend add's --set and backend set's words, with no space after it; nothing
        # once a value is being typed.
        if [[ $1 == setting ]]; then
          [[ $PREFIX == *=* ]] && return 1
          names=("${(@)names/%/=}")
          compadd -S '' -a names
          return
        fi
        # A method word may be typed in any case: get completes to GET.
        if [[ $1 == method ]]; then compadd -M 'm:{a-z}={A-Z}' -a names; else compadd -a names; fi
      }

      # Words on the line are as typed, quotes included: (Q) removes one level of quoting
      # without expanding anything, so --backend 'corp' means corp and --backend '$(x)' means
      # the literal text $(x). (command_path, never path: a local path is tied to $PATH in
      # zsh, and emptying it left the program unfound.)
      _accounts() {
        local cur=${words[CURRENT]} program=${(Q)words[1]}
        local command_path='' word kind backend='' adapter='' account='' arguments_only='' i _accounts_path _accounts_kind
        local -i positional=0
        local -a _accounts_subcommands _accounts_options _accounts_arguments
        for ((i = 2; i < CURRENT; i++)); do
          word=${words[i]}
          if [[ -z $arguments_only ]]; then
            case $word in
              --)
                arguments_only=1
                # exec USER -- CMD...: the words from here on are a command line of their own,
                # completed as zsh completes any command line.
                _accounts_spec "$command_path"
                if [[ ${_accounts_arguments[-1]} == command-line... ]]; then
                  words=("${(@)words[i+1,-1]}")
                  (( CURRENT -= i ))
                  _normal
                  return
                fi
                continue ;;
              --backend=*) backend=${(Q)word#--backend=} ; continue ;;
              --adapter=*) adapter=${(Q)word#--adapter=} ; continue ;;
              --*=*) continue ;;
              -*)
                if _accounts_option_kind "$word"; then
                  ((i++))
                  case $word in
                    --backend) backend=${(Q)words[i]} ;;
                    --adapter) adapter=${(Q)words[i]} ;;
                  esac
                fi
                continue ;;
            esac
          fi
          _accounts_spec "$command_path"
          if (( ${#_accounts_subcommands} )); then
            if _accounts_next "$command_path" "$word"; then
              command_path=$_accounts_path
              continue
            fi
            # A word that names no subcommand is the default subcommand's (otp alice).
            _accounts_next "$command_path" '' || return 1
            command_path=$_accounts_path
            _accounts_spec "$command_path"
          fi
          if [[ ${_accounts_arguments[positional+1]} == *'|method'* ]] && _accounts_is_method "${(Q)word}"; then
            ((positional += 2))
          else
            # The account argument, for completions that depend on it (untag's tags), and the
            # backend argument, whose settings `backend set NAME` offers.
            case ${_accounts_arguments[positional+1]} in
              account | 'account|'*) account=${(Q)word} ;;
              backend) backend=${(Q)word} ;;
            esac
            ((positional++))
          fi
        done
        if [[ -z $arguments_only ]] && (( CURRENT > 2 )) &&
          _accounts_option_kind "${words[CURRENT-1]}"; then
          _accounts_candidates "$_accounts_kind" "$program" "$backend" "$account" "$adapter"
          return
        fi
        _accounts_spec "$command_path"
        if [[ -z $arguments_only && $cur == --*=* ]] && _accounts_option_kind "${cur%%=*}"; then
          # --backend=co: complete the value after the option's '=' (its name is known: no
          # pattern character), not after the last one: --set=KEY= is a value being typed.
          compset -P "${cur%%=*}="
          _accounts_candidates "$_accounts_kind" "$program" "$backend" "$account" "$adapter"
        elif [[ -z $arguments_only && $cur == -* ]]; then
          _describe -t options 'option' _accounts_options
        elif (( ${#_accounts_subcommands} )); then
          _describe -t commands 'command' _accounts_subcommands
          # A group whose default subcommand takes words: its first argument too (otp USER).
          if _accounts_next "$command_path" ''; then
            _accounts_spec "$_accounts_path"
            kind=${_accounts_arguments[1]}
            [[ -n $kind ]] && _accounts_candidates "${kind%...}" "$program" "$backend" "$account" "$adapter"
          fi
        else
          if (( positional < ${#_accounts_arguments} )); then
            kind=${_accounts_arguments[positional+1]}
          elif (( ${#_accounts_arguments} )) && [[ ${_accounts_arguments[-1]} == *... ]]; then
            kind=${_accounts_arguments[-1]}
          else
            return 1
          fi
          _accounts_candidates "${kind%...}" "$program" "$backend" "$account" "$adapter"
        fi
      }

      if [[ ${funcstack[1]} == _accounts ]]; then
        _accounts "$@"
      else
        compdef _accounts accounts
      fi

      """
    return out
  }

  /// `name:description` for _describe; colons in the name would end it early.
  private static func describe(_ name: String, _ text: String) -> String {
    name.replacingOccurrences(of: ":", with: "\\:") + ":" + text
  }
}
