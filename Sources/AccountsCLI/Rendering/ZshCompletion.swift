/// zsh: an autoloadable `_accounts` that also works when sourced.
enum ZshCompletion {
  static func render(_ model: CompletionModel) -> String {
    var out = """
      #compdef accounts
      # zsh completion for accounts
      # Generated from the command table by `accounts completion zsh`; do not edit.
      # Install it as _accounts in a directory on $fpath (`make install` does) and run compinit,
      # or load it with `source <(accounts completion zsh)` after compinit.

      # The command path a word leads to from a command path; nothing for an unknown word.
      _accounts_next() {
        case "$1:$2" in

      """
    for step in model.steps {
      out += "    \(shellQuoted("\(step.from):\(step.word)"))) print -r -- \(shellQuoted(step.to)) ;;\n"
    }
    out += """
        esac
      }

      # Sets what may follow a command path, with descriptions.
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
        out += "      _accounts_arguments=(\(model.argumentKinds(node).joined(separator: " ")))\n"
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

      # The completion kind of an option's value; fails for options without a value.
      _accounts_option_kind() {
        case "$1" in

      """
    for option in model.valueOptions {
      out += "    --\(option.long)) print -r -- \(option.completion.rawValue) ;;\n"
    }
    out += """
        *) return 1 ;;
        esac
      }

      # Offers the names of a kind ($1), asking the accounts being completed ($2) with the
      # --backend typed so far ($3). Names come from the index and config only.
      _accounts_candidates() {
        local word
        local -a names
        case "$1" in
          shell) names=(bash zsh fish) ;;

      """
    for kind in CompletionKind.allCases {
      guard let word = CompletionModel.completeWord(kind) else { continue }
      out += "    \(kind.rawValue)) word=\(word) ;;\n"
    }
    out += """
          *) return 1 ;;
        esac
        if [[ -n $word ]]; then
          names=(${(f)"$($2 __complete $word ${3:+--backend} ${3:+$3} 2>/dev/null)"})
        fi
        compadd -a names
      }

      _accounts() {
        local cur=${words[CURRENT]} program=${words[1]}
        local path='' word next kind backend='' arguments_only='' i
        local -i positional=0
        local -a _accounts_subcommands _accounts_options _accounts_arguments
        for ((i = 2; i < CURRENT; i++)); do
          word=${words[i]}
          if [[ -z $arguments_only ]]; then
            case $word in
              --) arguments_only=1 ; continue ;;
              --*=*) continue ;;
              -*)
                if _accounts_option_kind "$word" >/dev/null; then
                  ((i++))
                  [[ $word == --backend ]] && backend=${words[i]}
                fi
                continue ;;
            esac
          fi
          _accounts_spec "$path"
          if (( ${#_accounts_subcommands} )); then
            next=$(_accounts_next "$path" "$word")
            [[ -n $next ]] || return 1
            path=$next
          else
            ((positional++))
          fi
        done
        if [[ -z $arguments_only ]] && (( CURRENT > 2 )) &&
          kind=$(_accounts_option_kind "${words[CURRENT-1]}"); then
          _accounts_candidates "$kind" "$program" "$backend"
          return
        fi
        _accounts_spec "$path"
        if [[ -z $arguments_only && $cur == -* ]]; then
          _describe -t options 'option' _accounts_options
        elif (( ${#_accounts_subcommands} )); then
          _describe -t commands 'command' _accounts_subcommands
        else
          if (( positional < ${#_accounts_arguments} )); then
            kind=${_accounts_arguments[positional+1]}
          elif (( ${#_accounts_arguments} )) && [[ ${_accounts_arguments[-1]} == *... ]]; then
            kind=${_accounts_arguments[-1]}
          else
            return 1
          fi
          _accounts_candidates "${kind%...}" "$program" "$backend"
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
