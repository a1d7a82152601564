import AccountsSystem
import AccountsCore

/// bash: `complete -F _accounts accounts`, without depending on the bash-completion package.
///
/// Every candidate reaches COMPREPLY as a literal word. The script never hands a name, or a
/// word the user typed, to `compgen -W`, `eval` or an unquoted expansion: each of those
/// expands `$(...)`, backquotes, `~` and globs once more, so a saved name could run a command
/// when TAB was pressed.
enum BashCompletion {
  static func render(_ model: CompletionModel) -> String {
    var out = """
      # bash completion for accounts
      # Generated from the command table by `accounts completion bash`; do not edit.
      # Load it with `source <(accounts completion bash)`, or install it as
      # /usr/share/bash-completion/completions/accounts (`make install` does).
      #
      # Candidates are matched as plain text and reach COMPREPLY as literal words: nothing here
      # passes a name, or a word on the command line, through compgen -W, eval or an unquoted
      # expansion, which would run $(...) and backquotes and expand globs once more.


      """
    out += model.nextFunction
    out += """
      # Sets what may follow a command path: subcommands, options, and the completion kinds of
      # its arguments (a kind ending in ... takes every remaining word; "account|method" is an
      # optional argument that a METHOD word skips, so that word is the METHOD).
      _accounts_spec() {
        case "$1" in

      """
    for node in model.nodes {
      out += "    \(shellQuoted(node.path)))\n"
      out += "      _accounts_subcommands=(\(words(node.subcommands.map(\.name))))\n"
      out += "      _accounts_options=(\(words(model.optionNames(node))))\n"
      out += "      _accounts_arguments=(\(words(model.argumentKinds(node)))) ;;\n"
    }
    out += """
        *) _accounts_subcommands=() _accounts_options=() _accounts_arguments=() ;;
        esac
      }


      """
    out += model.optionKindFunction
    out += """
      # Succeeds for an HTTP method word, in any case (ASCII letters only, as the parser).
      _accounts_is_method() {
        [[ -n $1 && $1 != *[!a-zA-Z]* ]] || return 1
        case ${1^^} in
          \(HTTPMethod.all.joined(separator: "|"))) return 0 ;;
        esac
        return 1
      }

      # Appends to COMPREPLY every word after the first that starts with the first. The quotes
      # make "$cur" a literal prefix, never a pattern. For short fixed lists only.
      _accounts_offer() {
        local cur=$1 candidate
        shift
        for candidate in "$@"; do
          [[ $candidate == "$cur"* ]] && COMPREPLY+=("$candidate")
        done
        return 0
      }

      # Appends to COMPREPLY the lines on stdin that start with $1 and could be saved names.
      # `accounts __complete` prints only such lines, so one check over all of them at once
      # accepts them whole: no bash work per name, however many there are. Only when some line
      # fails (a program that printed something else) is each line checked on its own.
      _accounts_offer_lines() {
        local cur=$1 IFS=$'\\n' all line
        local -a lines marked
        mapfile -t lines
        ((${#lines[@]})) || return 0
        all=$'\\n'"${lines[*]}"$'\\n'
        if [[ $all != *[!$'\\n'[:alnum:]._@+-]* && $all != *$'\\n'[-$'\\n']* ]]; then
          # Every line starts with $cur when marking that prefix leaves no line unmarked.
          marked=("${lines[@]/#"$cur"/$'\\1'}")
          all=$'\\n'"${marked[*]}"
          if [[ -z $cur || $all != *$'\\n'[!$'\\1']* ]]; then
            COMPREPLY+=("${lines[@]}")
            return 0
          fi
        fi
        for line in "${lines[@]}"; do
          _accounts_is_name "$line" && [[ $line == "$cur"* ]] && COMPREPLY+=("$line")
        done
        return 0
      }


      """
    out += CompletionModel.isNameFunction(
      why: """
        Letters of other scripts pass. Anything else was not saved
        # by accounts (a damaged or planted file) and is dropped, not quoted: bash inserts
        # COMPREPLY as it is, so $(...), backquotes, globs, ~ or a blank in it would act when the
        # line runs, and a quoted form (printf %q) would no longer start with what was typed.
        """)
    out += """
      # Offers the names of a kind ($1) that start with the current word ($2), asking the accounts
      # being completed ($3) with the --backend typed so far ($4), which prints only those; for
      # account-tag, the tags of the account typed earlier on the line ($5); for the kinds of
      # settings, those of the --adapter typed ($6), else of the backend. Names come from the
      # index and config (settings: from the adapter, loaded by that program in a child). Each
      # line printed is one candidate, read as text and never expanded. "account|method"
      # offers both.
      _accounts_candidates() {
        local word candidate
        local -a arguments
        case "$1" in
          *'|'*)
            _accounts_candidates "${1%%'|'*}" "$2" "$3" "$4" "$5" "$6"
            _accounts_candidates "${1#*'|'}" "$2" "$3" "$4" "$5" "$6"
            return 0 ;;
          # Directories come from bash itself; -o filenames makes readline quote them and add '/'.
          directory)
            compopt -o filenames 2>/dev/null
            while IFS= read -r candidate; do COMPREPLY+=("$candidate"); done < <(compgen -d -- "$2")
            return 0 ;;
          file)
            compopt -o filenames 2>/dev/null
            while IFS= read -r candidate; do COMPREPLY+=("$candidate"); done < <(compgen -f -- "$2")
            return 0 ;;

      """
    for kind in CompletionKind.allCases {
      guard let fixed = CompletionModel.fixedCandidates(kind) else { continue }
      // A method word may be typed in any case: `get` completes to GET.
      let typed = kind == .method ? "${2^^}" : "$2"
      out += "    \(kind.rawValue)) _accounts_offer \"\(typed)\" \(fixed.joined(separator: " ")) ; return ;;\n"
    }
    out += CompletionModel.completeWordArms
    out += """
          *) return ;;
        esac
        # KEY=VALUE: nothing once the value is being typed.
        [[ $1 == setting && $2 == *=* ]] && return 0
        arguments=(__complete "$word")
        [[ -n $4 ]] && arguments+=(--backend "$4")
        [[ -n $6 && $1 == *setting ]] && arguments+=(--adapter "$6")
        [[ $1 == account-tag ]] && arguments+=(--account "$5")
        _accounts_offer_lines "$2" < <("$3" "${arguments[@]}" -- "$2" 2>/dev/null)
        # KEY= for backend add's --set and backend set's words, with no space after it.
        if [[ $1 == setting ]]; then
          ((${#COMPREPLY[@]} == 0)) || COMPREPLY=("${COMPREPLY[@]/%/=}")
          compopt -o nospace 2>/dev/null
        fi
        return 0
      }


      """
    out += lineHelpers
    out += """
      _accounts() {
        local -a _accounts_words _accounts_subcommands _accounts_options _accounts_arguments
        _accounts_line_words
        local cword=$((${#_accounts_words[@]} - 1))
        local cur=${_accounts_words[cword]} program=${_accounts_words[0]}
        # An opening quote is not part of the name: 'al completes like al (readline closes it).
        [[ $cur == [\\'\\"]* ]] && cur=${cur:1}
        local command_path='' word kind backend='' adapter='' account='' positional=0 arguments_only='' command_start='' i
        local _accounts_path _accounts_kind
        COMPREPLY=()
        # Quotes around a whole word before the cursor are the shell's, not the name's: the
        # program gets 'bob' as bob (zsh and fish unquote these words too).
        for ((i = 1; i < cword; i++)); do
          case ${_accounts_words[i]} in
            \\'*\\' | \\"*\\") _accounts_words[i]=${_accounts_words[i]:1:${#_accounts_words[i]}-2} ;;
          esac
        done
        for ((i = 1; i < cword; i++)); do
          word=${_accounts_words[i]}
          if [[ -z $arguments_only ]]; then
            case $word in
              --)
                arguments_only=1
                # exec USER -- CMD...: the words from here on are a command line of their own.
                _accounts_spec "$command_path"
                if ((${#_accounts_arguments[@]})) &&
                  [[ ${_accounts_arguments[${#_accounts_arguments[@]} - 1]} == command-line... ]]; then
                  command_start=$((i + 1))
                  break
                fi
                continue ;;
              --backend=*) backend=${word#--backend=} ; continue ;;
              --adapter=*) adapter=${word#--adapter=} ; continue ;;
              --*=*) continue ;;
              -*)
                if _accounts_option_kind "$word"; then
                  i=$((i + 1))
                  case $word in
                    --backend) backend=${_accounts_words[i]} ;;
                    --adapter) adapter=${_accounts_words[i]} ;;
                  esac
                fi
                continue ;;
            esac
          fi
          _accounts_spec "$command_path"
          if ((${#_accounts_subcommands[@]})); then
            if _accounts_next "$command_path" "$word"; then
              command_path=$_accounts_path
              continue
            fi
            # A word that names no subcommand is the default subcommand's (otp alice).
            _accounts_next "$command_path" '' || return 0
            command_path=$_accounts_path
            _accounts_spec "$command_path"
          fi
          if [[ ${_accounts_arguments[positional]} == *'|method'* ]] && _accounts_is_method "$word"; then
            positional=$((positional + 2))
          else
            # The account argument, for completions that depend on it (untag's tags), and the
            # backend argument, whose settings `backend set NAME` offers.
            case ${_accounts_arguments[positional]} in
              account | 'account|'*) account=$word ;;
              backend) backend=$word ;;
            esac
            positional=$((positional + 1))
          fi
        done
        if [[ -n $command_start ]]; then
          _accounts_command_line "$command_start" "$cword" "$cur"
          return 0
        fi
        _accounts_spec "$command_path"
        if [[ -z $arguments_only ]] && ((cword > 1)) &&
          _accounts_option_kind "${_accounts_words[cword - 1]}"; then
          _accounts_candidates "$_accounts_kind" "$cur" "$program" "$backend" "$account" "$adapter"
        elif [[ -z $arguments_only && $cur == --*=* ]] && _accounts_option_kind "${cur%%=*}"; then
          # --backend=co: the value's candidates, written whole; the cut below leaves what
          # follows the '=' (a COMP_WORDBREAKS character), which is what readline replaces.
          _accounts_candidates "$_accounts_kind" "${cur#*=}" "$program" "$backend" "$account" "$adapter"
          ((${#COMPREPLY[@]} == 0)) || COMPREPLY=("${COMPREPLY[@]/#/${cur%%=*}=}")
        elif [[ -z $arguments_only && $cur == -* ]]; then
          _accounts_offer "$cur" "${_accounts_options[@]}"
        elif ((${#_accounts_subcommands[@]})); then
          _accounts_offer "$cur" "${_accounts_subcommands[@]}"
          # A group whose default subcommand takes words: its first argument too (otp USER).
          if _accounts_next "$command_path" ''; then
            _accounts_spec "$_accounts_path"
            kind=${_accounts_arguments[0]}
            [[ -n $kind ]] && _accounts_candidates "${kind%...}" "$cur" "$program" "$backend" "$account" "$adapter"
          fi
        else
          if ((positional < ${#_accounts_arguments[@]})); then
            kind=${_accounts_arguments[positional]}
          elif ((${#_accounts_arguments[@]})) &&
            [[ ${_accounts_arguments[${#_accounts_arguments[@]} - 1]} == *... ]]; then
            kind=${_accounts_arguments[${#_accounts_arguments[@]} - 1]}
          else
            return 0
          fi
          _accounts_candidates "${kind%...}" "$cur" "$program" "$backend" "$account" "$adapter"
        fi
        _accounts_cut_at_wordbreaks "$cur"
        return 0
      }

      complete -F _accounts accounts

      """
    return out
  }

  /// Words for a bash array, each quoted.
  private static func words(_ list: [String]) -> String {
    list.map(shellQuoted).joined(separator: " ")
  }
}
