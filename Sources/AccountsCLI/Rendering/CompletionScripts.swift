/// The completion scripts, generated from the command table.
enum CompletionScripts {
  static func script(for shell: String) -> String? {
    let model = CompletionModel(commands: CommandTable.all)
    switch shell {
    case "bash": return BashCompletion.render(model)
    case "zsh": return ZshCompletion.render(model)
    case "fish": return FishCompletion.render(model)
    default: return nil
    }
  }
}

/// bash: `complete -F _accounts accounts`, without depending on the bash-completion package.
enum BashCompletion {
  static func render(_ model: CompletionModel) -> String {
    var out = """
      # bash completion for accounts
      # Generated from the command table by `accounts completion bash`; do not edit.
      # Load it with `source <(accounts completion bash)`, or install it as
      # /usr/share/bash-completion/completions/accounts (`make install` does).

      # The command path a word leads to from a command path; nothing for an unknown word.
      _accounts_next() {
        case "$1:$2" in

      """
    for step in model.steps {
      out += "    \(shellQuoted("\(step.from):\(step.word)"))) echo \(shellQuoted(step.to)) ;;\n"
    }
    out += """
        esac
      }

      # Sets what may follow a command path: subcommands, options, and the completion kinds of
      # its arguments (a kind ending in ... takes every remaining word).
      _accounts_spec() {
        case "$1" in

      """
    for node in model.nodes {
      out += "    \(shellQuoted(node.path)))\n"
      out += "      _accounts_subcommands=\(shellQuoted(node.subcommands.map(\.name).joined(separator: " ")))\n"
      out += "      _accounts_options=\(shellQuoted(model.optionNames(node).joined(separator: " ")))\n"
      out += "      _accounts_arguments=\(shellQuoted(model.argumentKinds(node).joined(separator: " "))) ;;\n"
    }
    out += """
        *) _accounts_subcommands='' _accounts_options='' _accounts_arguments='' ;;
        esac
      }

      # The completion kind of an option's value; fails for options without a value.
      _accounts_option_kind() {
        case "$1" in

      """
    for option in model.valueOptions {
      out += "    --\(option.long)) echo \(option.completion.rawValue) ;;\n"
    }
    out += """
        *) return 1 ;;
        esac
      }

      # Candidates of a kind ($1) for the current word ($2), asking the accounts being completed ($3)
      # with the --backend typed so far ($4). Names come from the index and config only.
      _accounts_candidates() {
        local IFS=$'\\n' word
        case "$1" in
          shell) word='' ; COMPREPLY=($(compgen -W $'bash\\nzsh\\nfish' -- "$2")) ; return ;;

      """
    for kind in CompletionKind.allCases {
      guard let word = CompletionModel.completeWord(kind) else { continue }
      out += "    \(kind.rawValue)) word=\(word) ;;\n"
    }
    out += """
          *) COMPREPLY=() ; return ;;
        esac
        # Two expansions: IFS is a newline here, so one would pass "--backend NAME" as one word.
        COMPREPLY=($(compgen -W "$("$3" __complete "$word" ${4:+--backend} ${4:+"$4"} 2>/dev/null)" -- "$2"))
      }

      _accounts() {
        local cur=${COMP_WORDS[COMP_CWORD]} program=${COMP_WORDS[0]}
        local path='' word next kind backend='' positional=0 arguments_only='' i
        for ((i = 1; i < COMP_CWORD; i++)); do
          word=${COMP_WORDS[i]}
          if [[ -z $arguments_only ]]; then
            case $word in
              --) arguments_only=1 ; continue ;;
              --*=*) continue ;;
              -*)
                if _accounts_option_kind "$word" >/dev/null; then
                  ((i++))
                  [[ $word == --backend ]] && backend=${COMP_WORDS[i]}
                fi
                continue ;;
            esac
          fi
          _accounts_spec "$path"
          if [[ -n $_accounts_subcommands ]]; then
            next=$(_accounts_next "$path" "$word")
            [[ -n $next ]] || return 0
            path=$next
          else
            ((positional++))
          fi
        done
        if [[ -z $arguments_only ]] && ((COMP_CWORD > 1)) &&
          kind=$(_accounts_option_kind "${COMP_WORDS[COMP_CWORD - 1]}"); then
          _accounts_candidates "$kind" "$cur" "$program" "$backend"
          return 0
        fi
        _accounts_spec "$path"
        if [[ -z $arguments_only && $cur == -* ]]; then
          COMPREPLY=($(compgen -W "$_accounts_options" -- "$cur"))
        elif [[ -n $_accounts_subcommands ]]; then
          COMPREPLY=($(compgen -W "$_accounts_subcommands" -- "$cur"))
        else
          local kinds=($_accounts_arguments)
          if ((positional < ${#kinds[@]})); then
            kind=${kinds[positional]}
          elif ((${#kinds[@]} > 0)) && [[ ${kinds[${#kinds[@]} - 1]} == *... ]]; then
            kind=${kinds[${#kinds[@]} - 1]}
          else
            return 0
          fi
          _accounts_candidates "${kind%...}" "$cur" "$program" "$backend"
        fi
      }

      complete -F _accounts accounts

      """
    return out
  }
}
