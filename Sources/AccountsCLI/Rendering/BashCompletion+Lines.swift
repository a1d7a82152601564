extension BashCompletion {
  /// The functions that read the command line as the user sees it (bash's own word splitting
  /// undone) and complete what follows exec's --: static text, part of the script `render`
  /// writes.
  static let lineHelpers = """
      # The words after exec's or lease's --, from word $1 of the line, the cursor on word $2
      # ($3 typed so far): a command name first (compgen -c), then file names.
      _accounts_command_line() {
        local candidate
        if (($1 == $2)); then
          while IFS= read -r candidate; do COMPREPLY+=("$candidate"); done < <(compgen -c -- "$3" | sort -u)
        else
          compopt -o filenames 2>/dev/null
          while IFS= read -r candidate; do COMPREPLY+=("$candidate"); done < <(compgen -f -- "$3")
        fi
        return 0
      }

      # Sets _accounts_words to the words up to the cursor as the user sees them. bash also
      # splits COMP_WORDS at every COMP_WORDBREAKS character (by default @ : = among others), so
      # alice@corp arrives as alice, @, corp: pieces with no blank between them in COMP_LINE
      # are joined again.
      _accounts_line_words() {
        local line=$COMP_LINE piece i
        if [[ -z ${COMP_LINE+set} ]]; then
          _accounts_words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
          return
        fi
        _accounts_words=()
        for ((i = 0; i <= COMP_CWORD; i++)); do
          piece=${COMP_WORDS[i]}
          if ((i == 0)) || [[ $line == [[:space:]]* ]]; then
            line=${line#"${line%%[![:space:]]*}"}
            _accounts_words+=("$piece")
          else
            _accounts_words[${#_accounts_words[@]} - 1]+=$piece
          fi
          # By length, not ${line#"$piece"}: that pattern match is slow on a long word.
          [[ ${line:0:${#piece}} == "$piece" ]] && line=${line:${#piece}}
        done
        return 0
      }

      # readline replaces only the end of the current word ($1), from its last COMP_WORDBREAKS
      # character on: after a ':' or '=', but from the '@' or '$' itself, which bash keeps in
      # the word (its rl_special_prefixes). For alice@co that is "@co": cut "alice" from every
      # candidate. One pattern match, not a loop over characters: a long word must not make TAB
      # slow. Without COMP_WORDBREAKS readline still breaks at bash's defaults, spelled here.
      _accounts_cut_at_wordbreaks() {
        local breaks=${COMP_WORDBREAKS-$' \\t\\n"\\'@><=;|&(:'} before prefix
        [[ -n $breaks ]] || return 0
        before=${1%["$breaks"]*}  # up to the last break character (shortest suffix: fast)
        [[ $before != "$1" ]] || return 0
        prefix=${1:0:${#before}+1}
        [[ $prefix == *[@\\$] ]] && prefix=$before
        [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
        return 0
      }


      """
}
