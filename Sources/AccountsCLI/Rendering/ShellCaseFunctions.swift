import AccountsCore
import AccountsSystem

/// The functions the bash and zsh scripts share word for word: both shells read the same
/// `case` tables, so the command tree, the option kinds and the name check are written once.
extension CompletionModel {
  /// `_accounts_next FROM WORD`: the command path a word leads to.
  var nextFunction: String {
    var out = """
      # Sets _accounts_path to the command path a word leads to from a command path; fails for
      # an unknown word. (Functions here set variables rather than print: a $(...) per word
      # would fork a subshell each time.)
      _accounts_next() {
        case "$1:$2" in

      """
    for step in steps {
      out += "    \(shellQuoted("\(step.from):\(step.word)"))) _accounts_path=\(shellQuoted(step.to)) ;;\n"
    }
    return out + Self.failingEnd
  }

  /// `_accounts_option_kind OPTION`: the completion kind of an option's value.
  var optionKindFunction: String {
    var out = """
      # Sets _accounts_kind to the completion kind of an option's value; fails for options
      # without a value.
      _accounts_option_kind() {
        case "$1" in

      """
    for option in valueOptions {
      out += "    \(spellings(option).joined(separator: "|"))) _accounts_kind=\(option.completion.rawValue) ;;\n"
    }
    return out + Self.failingEnd
  }

  /// `_accounts_is_name WORD`, the shell side of NAMES in `man accounts`; `why` ends its
  /// comment (lines of "# " comment), saying what the shell does with a word that fails.
  static func isNameFunction(why: String) -> String {
    """
    # Succeeds when $1 could be a saved name (see NAMES in `man accounts`): not empty, not
    # starting with '-', no control character, and every ASCII character in it a letter, a
    # digit or one of . _ - @ +. \(why)
    _accounts_is_name() {
      local rest=${1//[[:alnum:]._@+-]/}
      [[ -n $1 && $1 != -* && $rest != *[[:ascii:][:cntrl:]]* ]]
    }


    """
  }

  /// The `case` arms that set `word` to the `__complete` word of each kind names come from.
  static var completeWordArms: String {
    CompletionKind.allCases.compactMap { kind in
      completeWord(kind).map { "    \(kind.rawValue)) word=\($0) ;;\n" }
    }.joined()
  }

  private static let failingEnd = """
      *) return 1 ;;
      esac
    }


    """
}
