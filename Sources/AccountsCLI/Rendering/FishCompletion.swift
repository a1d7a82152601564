/// fish: `complete` rules conditioned on the command path typed so far.
enum FishCompletion {
  static func render(_ model: CompletionModel) -> String {
    var out = """
      # fish completion for accounts
      # Generated from the command table by `accounts completion fish`; do not edit.
      # Install it as ~/.config/fish/completions/accounts.fish (`make install` puts it in
      # fish's vendor completions directory).

      # The command path a word leads to from a command path; nothing for an unknown word.
      function __accounts_next --argument-names path word
          switch "$path:$word"

      """
    for step in model.steps {
      out += "        case \(shellQuoted("\(step.from):\(step.word)"))\n            echo \(shellQuoted(step.to))\n"
    }
    out += """
          end
      end

      # The completion kind of an option's value; fails for options without a value.
      function __accounts_option_kind --argument-names option
          switch $option

      """
    for option in model.valueOptions {
      out += "        case --\(option.long)\n            echo \(option.completion.rawValue)\n"
    }
    out += """
              case '*'
                  return 1
          end
      end

      # The command path typed so far, e.g. "backend add".
      function __accounts_path
          set -l words (commandline -opc)
          set -e words[1]
          set -l path ''
          set -l skip 0
          for word in $words
              if test $skip -eq 1
                  set skip 0
                  continue
              end
              switch $word
                  case '--*=*'
                      continue
                  case '-*'
                      if __accounts_option_kind $word >/dev/null
                          set skip 1
                      end
                      continue
              end
              set -l next (__accounts_next "$path" $word)
              if test -z "$next"
                  break
              end
              set path $next
          end
          echo $path
      end

      function __accounts_at --argument-names expected
          set -l path (__accounts_path)
          test "$path" = "$expected"
      end

      # Names of a kind from the accounts being completed, with the --backend typed so far.
      # They come from the index and config only.
      function __accounts_names --argument-names kind
          set -l words (commandline -opc)
          set -l backend
          for i in (seq (count $words))
              if test "$words[$i]" = --backend; and test $i -lt (count $words)
                  set backend --backend $words[(math $i + 1)]
              end
          end
          $words[1] __complete $kind $backend 2>/dev/null
      end

      complete -c accounts -f

      """
    for node in model.nodes {
      let condition = shellQuoted("__accounts_at \(shellQuoted(node.path))")
      for sub in node.subcommands {
        out += "complete -c accounts -n \(condition) -a \(sub.name) -d \(shellQuoted(sub.summary))\n"
      }
      for option in node.options {
        out += "complete -c accounts -n \(condition) \(optionFlags(option)) -d \(shellQuoted(option.help))\n"
      }
      for argument in node.arguments {
        if let candidates = candidates(argument.completion) {
          out += "complete -c accounts -n \(condition) -a \(shellQuoted(candidates))\n"
        }
      }
    }
    for option in GlobalOptions.all {
      out += "complete -c accounts \(optionFlags(option)) -d \(shellQuoted(option.help))\n"
    }
    return out
  }

  private static func optionFlags(_ option: OptionSpec) -> String {
    var flags = (option.short.map { "-s \($0) " } ?? "") + "-l \(option.long)"
    if option.takesValue {
      flags += " -x"
      if let candidates = candidates(option.completion) { flags += " -a \(shellQuoted(candidates))" }
    }
    return flags
  }

  private static func candidates(_ kind: CompletionKind) -> String? {
    if kind == .shell { return "bash zsh fish" }
    return CompletionModel.completeWord(kind).map { "(__accounts_names \($0))" }
  }
}
