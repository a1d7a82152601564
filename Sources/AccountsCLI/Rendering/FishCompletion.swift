import AccountsSystem
import AccountsCore

/// fish: `complete` rules conditioned on the command path typed so far.
///
/// fish does not expand what a command substitution in `complete -a` prints, and
/// `commandline -opc` returns the typed words unescaped but unevaluated; the script keeps it
/// that way (no eval, every word passed as one argument) and drops lines that cannot be names.
enum FishCompletion {
  static func render(_ model: CompletionModel) -> String {
    var out = """
      # fish completion for accounts
      # Generated from the command table by `accounts completion fish`; do not edit.
      # Install it as ~/.config/fish/completions/accounts.fish (`make install` puts it in
      # fish's vendor completions directory).
      #
      # Names are printed by `accounts __complete` one per line and offered as literal words;
      # nothing from a name or the command line is evaluated.

      # The command path a word leads to from a command path; nothing for an unknown word.
      function __accounts_next --argument-names command_path word
          switch "$command_path:$word"

      """
    for step in model.steps {
      out += "        case \(shellQuoted("\(step.from):\(step.word)"))\n            echo \(shellQuoted(step.to))\n"
    }
    out += """
          end
      end

      # Succeeds for a command path that takes a subcommand.
      function __accounts_is_group --argument-names command_path
          switch "$command_path"
              case \(model.nodes.filter { !$0.subcommands.isEmpty }.map { shellQuoted($0.path) }.joined(separator: " "))
                  return 0
          end
          return 1
      end

      # The completion kind of an option's value; fails for options without a value.
      function __accounts_option_kind --argument-names option
          switch $option

      """
    for option in model.valueOptions {
      out += "        case \(model.spellings(option).joined(separator: " "))\n            echo \(option.completion.rawValue)\n"
    }
    out += """
              case '*'
                  return 1
          end
      end


      """
    // path:index of every argument that names an account (untag's tags depend on it).
    let arguments = { (kind: CompletionKind) in
      model.nodes.flatMap { node in
        node.arguments.indices.filter { node.arguments[$0].completion == kind }.map { "\(node.path):\($0)" }
      }
    }
    let methodSkips = model.nodes.flatMap { node in
      node.arguments.indices.filter { model.methodAfter(node, $0) != nil }.map { "\(node.path):\($0)" }
    }
    out += membership(
      "__accounts_method_after", of: "$command_path:$index", methodSkips, """
        # Succeeds when argument INDEX of the command at the path given is optional and a METHOD
        # follows it: a method word there is the METHOD (`request [USER] METHOD`).
        """)
    out += membership(
      "__accounts_takes_command", of: "$command_path",
      model.nodes.filter { $0.arguments.last?.completion == .commandLine }.map(\.path),
      "# Succeeds for a command path whose last argument is a command line after -- (exec, lease).")
    out += membership(
      "__accounts_is_account_argument", of: "$command_path:$index", arguments(.account),
      "# Succeeds when argument INDEX of the command at the path given names an account.")
    out += membership(
      "__accounts_is_backend_argument", of: "$command_path:$index", arguments(.backend),
      "# Succeeds when argument INDEX of the command at the path given names a backend.")
    out += """
      # Succeeds for an HTTP method word, in any case (ASCII letters only, as the parser).
      function __accounts_is_method --argument-names word
          string match -qr '^[a-zA-Z]+$' -- $word; or return 1
          contains -- (string upper -- $word) \(HTTPMethod.all.joined(separator: " "))
      end

      # Walks the words before the cursor: prints how many arguments follow the command, the
      # command path (e.g. "backend add"), the account argument typed (or an empty line), then
      # where the command line after exec's or lease's -- starts among the words before the
      # cursor, from 1 (0: not after such a --), then the backend argument typed and the
      # --adapter value typed (or empty lines). Fails at a word that is no command where a
      # command was expected, and on a line where a word holds a newline: commandline -o
      # prints one word per line, so that word would read as two (--adapter plain\\nx as
      # plain), and no name holds one.
      function __accounts_walk
          test (count (string unescape -- (commandline -pc | string collect -a))) -le 1; or return 1
          set -l words (commandline -opc)
          set -e words[1]
          set -l index 0
          set -l command_path ''
          set -l account ''
          set -l backend ''
          set -l adapter ''
          set -l positional 0
          set -l skip ''
          set -l arguments_only 0
          for word in $words
              set index (math $index + 1)
              if test -n "$skip"
                  test "$skip" = --adapter; and set adapter $word
                  set skip ''
                  continue
              end
              if test $arguments_only -eq 0
                  switch $word
                      case --
                          set arguments_only 1
                          if __accounts_takes_command "$command_path"
                              printf '%s\\n' $positional "$command_path" "$account" (math $index + 2) "$backend" "$adapter"
                              return 0
                          end
                          continue
                      case '--adapter=*'
                          set adapter (string replace -r -- '^--adapter=' '' $word)
                          continue
                      case '--*=*'
                          continue
                      case '-*'
                          if __accounts_option_kind $word >/dev/null
                              set skip $word
                          end
                          continue
                  end
              end
              if __accounts_is_group "$command_path"
                  set -l next (__accounts_next "$command_path" $word)
                  if test -n "$next"
                      set command_path $next
                      continue
                  end
                  # A word that names no subcommand is the default subcommand's (otp alice).
                  set next (__accounts_next "$command_path" '')
                  test -n "$next"; or return 1
                  set command_path $next
              end
              if __accounts_method_after "$command_path" $positional; and __accounts_is_method $word
                  set positional (math $positional + 2)
              else
                  if __accounts_is_account_argument "$command_path" $positional
                      set account $word
                  else if __accounts_is_backend_argument "$command_path" $positional
                      set backend $word
                  end
                  set positional (math $positional + 1)
              end
          end
          printf '%s\\n' $positional "$command_path" "$account" 0 "$backend" "$adapter"
      end

      # Succeeds when the cursor is on the command at the path given.
      function __accounts_at --argument-names expected
          set -l state (__accounts_walk); or return 1
          test $state[4] -eq 0; and test "$state[2]" = "$expected"
      end

      # Succeeds when the cursor is on argument INDEX (from 0) of the command at the path given;
      # with "variadic", on that argument or any after it.
      function __accounts_argument_at --argument-names expected index variadic
          set -l state (__accounts_walk); or return 1
          test $state[4] -eq 0; and test "$state[2]" = "$expected"; or return 1
          test $state[1] -eq $index; or begin
              test -n "$variadic"; and test $state[1] -gt $index
          end
      end

      # Names of a kind from the accounts being completed, with the --backend typed so far, one
      # per line. They come from the index and config only. Lines that could not be saved
      # names are dropped (see NAMES in `man accounts`): a leading '-', a control character, or
      # an ASCII character other than a letter, a digit or . _ - @ +.
      function __accounts_names --argument-names kind
          set -l words (commandline -opc)
          set -l extra $argv[2..-1]
          set -l arguments __complete $kind
          for i in (seq 2 (count $words))
              switch $words[$i]
                  case --backend
                      if test $i -lt (count $words)
                          set arguments __complete $kind --backend $words[(math $i + 1)]
                      end
                  case '--backend=*'
                      set arguments __complete $kind --backend (string replace -r -- '^--backend=' '' $words[$i])
              end
          end
          $words[1] $arguments $extra 2>/dev/null | string match -r -- '^(?!-)(?:[[:alnum:]._@+-]|[^\\x00-\\x7f\\p{Cc}])+$'
      end

      # The tags of the account typed earlier on the line (untag), one per line.
      function __accounts_account_tags
          set -l state (__accounts_walk); or return 1
          __accounts_names tags --account "$state[3]"
      end

      # Setting names of KIND (settings, secret-settings, unsettable-settings) of the --adapter
      # typed (backend add), else of the backend named earlier on the line (backend set NAME),
      # one per line; settings as KEY=, and nothing once a value is being typed.
      function __accounts_settings --argument-names kind
          set -l suffix ''
          if test $kind = settings
              string match -q -- '*=*' (commandline -ct); and return 0
              set suffix =
          end
          set -l state (__accounts_walk); or return 1
          set -l arguments __complete $kind
          test -n "$state[5]"; and set -a arguments --backend $state[5]
          test -n "$state[6]"; and set -a arguments --adapter $state[6]
          set -l words (commandline -opc)
          $words[1] $arguments 2>/dev/null | string match -r -- '^[a-z0-9_]+$' | string replace -r -- '$' "$suffix"
      end
      # Succeeds when the cursor is in the command line after exec's or lease's --.
      function __accounts_in_command_line
          set -l state (__accounts_walk); or return 1
          test $state[4] -gt 0
      end
      # That command line, completed as fish completes any.
      function __accounts_command_line
          set -l state (__accounts_walk); or return 1
          set -l words (commandline -opc)
          set -l command
          for i in (seq $state[4] (count $words))
              set -a command $words[$i]
          end
          __fish_complete_subcommand --commandline $command (commandline -ct)
      end
      complete -c accounts -f
      complete -c accounts -n __accounts_in_command_line -a '(__accounts_command_line)'

      """
    for node in model.nodes {
      let condition = shellQuoted("__accounts_at \(shellQuoted(node.path))")
      for sub in node.subcommands {
        out += "complete -c accounts -n \(condition) -a \(sub.name) -d \(shellQuoted(sub.summary))\n"
      }
      for option in node.options {
        out += "complete -c accounts -n \(condition) \(optionFlags(option)) -d \(shellQuoted(option.help))\n"
      }
      // A group whose default subcommand takes words: that one's first argument where the
      // subcommand would go (otp USER).
      if let step = model.steps.first(where: { $0.from == node.path && $0.word.isEmpty }),
        let target = model.nodes.first(where: { $0.path == step.to }), let first = target.arguments.first
      {
        let position = "__accounts_argument_at \(shellQuoted(node.path)) 0"
        for candidates in [first.completion].compactMap(candidates) {
          out += "complete -c accounts -n \(shellQuoted(position)) -a \(shellQuoted(candidates))\n"
        }
      }
      for (index, argument) in node.arguments.enumerated() {
        let position = "__accounts_argument_at \(shellQuoted(node.path)) \(index)" + (argument.variadic ? " variadic" : "")
        // [USER] METHOD: where USER may go, so may the METHOD.
        let kinds = [argument.completion] + (model.methodAfter(node, index).map { [$0.completion] } ?? [])
        for candidates in kinds.compactMap(candidates) {
          out += "complete -c accounts -n \(shellQuoted(position)) -a \(shellQuoted(candidates))\n"
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
    if let fixed = CompletionModel.fixedCandidates(kind) { return fixed.joined(separator: " ") }
    if kind == .directory { return "(__fish_complete_directories (commandline -ct))" }
    if kind == .file { return "(__fish_complete_path (commandline -ct))" }
    if kind == .accountTag { return "(__accounts_account_tags)" }
    if [.setting, .secretSetting, .unsettableSetting].contains(kind) {
      return CompletionModel.completeWord(kind).map { "(__accounts_settings \($0))" }
    }
    return CompletionModel.completeWord(kind).map { "(__accounts_names \($0))" }
  }

  /// A fish function that succeeds when `subject` is one of `members` (each quoted): one
  /// `switch`, so the check costs no process.
  private static func membership(
    _ name: String, of subject: String, _ members: [String], _ comment: String
  ) -> String {
    let arguments = subject.contains(":") ? "command_path index" : "command_path"
    return """
      \(comment)
      function \(name) --argument-names \(arguments)
          switch "\(subject)"
              case \(members.isEmpty ? "''" : members.map(shellQuoted).joined(separator: " "))
                  return 0
          end
          return 1
      end


      """
  }
}
