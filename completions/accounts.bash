# bash completion for accounts
# Generated from the command table by `accounts completion bash`; do not edit.
# Load it with `source <(accounts completion bash)`, or install it as
# /usr/share/bash-completion/completions/accounts (`make install` does).
#
# Candidates are matched as plain text and reach COMPREPLY as literal words: nothing here
# passes a name, or a word on the command line, through compgen -W, eval or an unquoted
# expansion, which would run $(...) and backquotes and expand globs once more.

# Sets _accounts_path to the command path a word leads to from a command path; fails for
# an unknown word. (Functions here set variables rather than print: a $(...) per word
# would fork a subshell each time.)
_accounts_next() {
  case "$1:$2" in
    ':list') _accounts_path='list' ;;
    ':ls') _accounts_path='list' ;;
    ':add') _accounts_path='add' ;;
    ':remove') _accounts_path='remove' ;;
    ':forget') _accounts_path='remove' ;;
    ':password') _accounts_path='password' ;;
    ':passwd') _accounts_path='passwd' ;;
    ':otp') _accounts_path='otp' ;;
    'otp:') _accounts_path='otp code' ;;
    'otp:code') _accounts_path='otp code' ;;
    'otp:set') _accounts_path='otp set' ;;
    ':tag') _accounts_path='tag' ;;
    ':untag') _accounts_path='untag' ;;
    ':import') _accounts_path='import' ;;
    ':export') _accounts_path='export' ;;
    ':current') _accounts_path='current' ;;
    ':login') _accounts_path='login' ;;
    ':switch') _accounts_path='switch' ;;
    ':logout') _accounts_path='logout' ;;
    ':token') _accounts_path='token' ;;
    ':exec') _accounts_path='exec' ;;
    ':lease') _accounts_path='lease' ;;
    ':release') _accounts_path='release' ;;
    ':leases') _accounts_path='leases' ;;
    ':env') _accounts_path='env' ;;
    ':shell') _accounts_path='shell' ;;
    ':hook') _accounts_path='hook' ;;
    'hook:add') _accounts_path='hook add' ;;
    'hook:remove') _accounts_path='hook remove' ;;
    'hook:rm') _accounts_path='hook remove' ;;
    ':hooks') _accounts_path='hooks' ;;
    ':request') _accounts_path='request' ;;
    ':status') _accounts_path='status' ;;
    ':which') _accounts_path='which' ;;
    ':rules') _accounts_path='rules' ;;
    ':rule') _accounts_path='rule' ;;
    'rule:add') _accounts_path='rule add' ;;
    'rule:remove') _accounts_path='rule remove' ;;
    'rule:rm') _accounts_path='rule remove' ;;
    ':prompt') _accounts_path='prompt' ;;
    ':git-credential') _accounts_path='git-credential' ;;
    ':clear') _accounts_path='clear' ;;
    ':backend') _accounts_path='backend' ;;
    'backend:add') _accounts_path='backend add' ;;
    'backend:list') _accounts_path='backend list' ;;
    'backend:ls') _accounts_path='backend list' ;;
    'backend:show') _accounts_path='backend show' ;;
    'backend:set') _accounts_path='backend set' ;;
    'backend:test') _accounts_path='backend test' ;;
    'backend:remove') _accounts_path='backend remove' ;;
    'backend:rm') _accounts_path='backend remove' ;;
    ':adapters') _accounts_path='adapters' ;;
    ':doctor') _accounts_path='doctor' ;;
    ':lock') _accounts_path='lock' ;;
    ':completion') _accounts_path='completion' ;;
    ':help') _accounts_path='help' ;;
  *) return 1 ;;
  esac
}

# Sets what may follow a command path: subcommands, options, and the completion kinds of
# its arguments (a kind ending in ... takes every remaining word; "account|method" is an
# optional argument that a METHOD word skips, so that word is the METHOD).
_accounts_spec() {
  case "$1" in
    '')
      _accounts_subcommands=('list' 'add' 'remove' 'password' 'passwd' 'otp' 'tag' 'untag' 'import' 'export' 'current' 'login' 'switch' 'logout' 'token' 'exec' 'lease' 'release' 'leases' 'env' 'shell' 'hook' 'hooks' 'request' 'status' 'which' 'rules' 'rule' 'prompt' 'git-credential' 'clear' 'backend' 'adapters' 'doctor' 'lock' 'completion' 'help')
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'list')
      _accounts_subcommands=()
      _accounts_options=('--tag' '--names' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'add')
      _accounts_subcommands=()
      _accounts_options=('--remember' '--password-stdin' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('none') ;;
    'remove')
      _accounts_subcommands=()
      _accounts_options=('--force' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'password')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'passwd')
      _accounts_subcommands=()
      _accounts_options=('--password-stdin' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'otp')
      _accounts_subcommands=('code' 'set')
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'otp code')
      _accounts_subcommands=()
      _accounts_options=('--at' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'otp set')
      _accounts_subcommands=()
      _accounts_options=('--remove' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'tag')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account' 'tag...') ;;
    'untag')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account' 'account-tag...') ;;
    'import')
      _accounts_subcommands=()
      _accounts_options=('--tag' '--dry-run' '--update' '--partial' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('file') ;;
    'export')
      _accounts_subcommands=()
      _accounts_options=('--tag' '--with-passwords' '--spreadsheet-safe' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'current')
      _accounts_subcommands=()
      _accounts_options=('--check' '--password-stdin' '--timeout' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'login')
      _accounts_subcommands=()
      _accounts_options=('--remember' '--auto' '--password-stdin' '--force' '--stale' '--tag' '--within' '--jobs' '-j' '--timeout' '--no-hooks' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account...') ;;
    'switch')
      _accounts_subcommands=()
      _accounts_options=('--password-stdin' '--timeout' '--no-hooks' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'logout')
      _accounts_subcommands=()
      _accounts_options=('--force' '--timeout' '--no-hooks' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'token')
      _accounts_subcommands=()
      _accounts_options=('--check' '--password-stdin' '--timeout' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'exec')
      _accounts_subcommands=()
      _accounts_options=('--password-stdin' '--timeout' '--refresh' '--refresh-check' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account' 'command-line...') ;;
    'lease')
      _accounts_subcommands=()
      _accounts_options=('--tag' '--count' '--wait' '--ttl' '--timeout' '--refresh' '--refresh-check' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account...' 'command-line...') ;;
    'release')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('none') ;;
    'leases')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'env')
      _accounts_subcommands=()
      _accounts_options=('--shell' '--check' '--password-stdin' '--timeout' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'shell')
      _accounts_subcommands=()
      _accounts_options=('--force' '--check' '--timeout' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account') ;;
    'hook')
      _accounts_subcommands=('add' 'remove')
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'hook add')
      _accounts_subcommands=()
      _accounts_options=('--account' '--with-token' '--timeout' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('event' 'none') ;;
    'hook remove')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('none') ;;
    'hooks')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'request')
      _accounts_subcommands=()
      _accounts_options=('--password-stdin' '--timeout' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('account|method' 'method' 'none' 'none...') ;;
    'status')
      _accounts_subcommands=()
      _accounts_options=('--jobs' '-j' '--json-lines' '--timeout' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'which')
      _accounts_subcommands=()
      _accounts_options=('--explain' '--account' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'rules')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'rule')
      _accounts_subcommands=('add' 'remove')
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'rule add')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('directory' 'account') ;;
    'rule remove')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('directory') ;;
    'prompt')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'git-credential')
      _accounts_subcommands=()
      _accounts_options=('--erase-logs-out' '--timeout' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('credential-action') ;;
    'clear')
      _accounts_subcommands=()
      _accounts_options=('--yes' '-y' '--force' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'backend')
      _accounts_subcommands=('add' 'list' 'show' 'set' 'test' 'remove')
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'backend add')
      _accounts_subcommands=()
      _accounts_options=('--adapter' '--set' '--secret-stdin' '--secret' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('none') ;;
    'backend list')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'backend show')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('backend') ;;
    'backend set')
      _accounts_subcommands=()
      _accounts_options=('--unset' '--secret' '--secret-stdin' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('backend' 'setting...') ;;
    'backend test')
      _accounts_subcommands=()
      _accounts_options=('--password-stdin' '--timeout' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('backend' 'none') ;;
    'backend remove')
      _accounts_subcommands=()
      _accounts_options=('--force' '--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('backend') ;;
    'adapters')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('adapter') ;;
    'doctor')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'lock')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=() ;;
    'completion')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('shell') ;;
    'help')
      _accounts_subcommands=()
      _accounts_options=('--json' '--backend' '--quiet' '-q' '--help' '-h' '--version')
      _accounts_arguments=('command...') ;;
  *) _accounts_subcommands=() _accounts_options=() _accounts_arguments=() ;;
  esac
}

# Sets _accounts_kind to the completion kind of an option's value; fails for options
# without a value.
_accounts_option_kind() {
  case "$1" in
    --backend) _accounts_kind=backend ;;
    --tag) _accounts_kind=tag ;;
    --at) _accounts_kind=none ;;
    --account) _accounts_kind=account ;;
    --timeout) _accounts_kind=none ;;
    --within) _accounts_kind=none ;;
    --jobs|-j) _accounts_kind=none ;;
    --refresh-check) _accounts_kind=none ;;
    --count) _accounts_kind=none ;;
    --wait) _accounts_kind=none ;;
    --ttl) _accounts_kind=none ;;
    --shell) _accounts_kind=shell ;;
    --adapter) _accounts_kind=adapter ;;
    --set) _accounts_kind=setting ;;
    --secret-stdin) _accounts_kind=secret-setting ;;
    --secret) _accounts_kind=secret-setting ;;
    --unset) _accounts_kind=unsettable-setting ;;
  *) return 1 ;;
  esac
}

# Succeeds for an HTTP method word, in any case (ASCII letters only, as the parser).
_accounts_is_method() {
  [[ -n $1 && $1 != *[!a-zA-Z]* ]] || return 1
  case ${1^^} in
    GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) return 0 ;;
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
  local cur=$1 IFS=$'\n' all line
  local -a lines marked
  mapfile -t lines
  ((${#lines[@]})) || return 0
  all=$'\n'"${lines[*]}"$'\n'
  if [[ $all != *[!$'\n'[:alnum:]._@+-]* && $all != *$'\n'[-$'\n']* ]]; then
    # Every line starts with $cur when marking that prefix leaves no line unmarked.
    marked=("${lines[@]/#"$cur"/$'\1'}")
    all=$'\n'"${marked[*]}"
    if [[ -z $cur || $all != *$'\n'[!$'\1']* ]]; then
      COMPREPLY+=("${lines[@]}")
      return 0
    fi
  fi
  for line in "${lines[@]}"; do
    _accounts_is_name "$line" && [[ $line == "$cur"* ]] && COMPREPLY+=("$line")
  done
  return 0
}

# Succeeds when $1 could be a saved name (see NAMES in `man accounts`): not empty, not
# starting with '-', no control character, and every ASCII character in it a letter, a
# digit or one of . _ - @ +. Letters of other scripts pass. Anything else was not saved
# by accounts (a damaged or planted file) and is dropped, not quoted: bash inserts
# COMPREPLY as it is, so $(...), backquotes, globs, ~ or a blank in it would act when the
# line runs, and a quoted form (printf %q) would no longer start with what was typed.
_accounts_is_name() {
  local rest=${1//[[:alnum:]._@+-]/}
  [[ -n $1 && $1 != -* && $rest != *[[:ascii:][:cntrl:]]* ]]
}

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
    shell) _accounts_offer "$2" bash zsh fish ; return ;;
    event) _accounts_offer "$2" switch login logout ; return ;;
    method) _accounts_offer "${2^^}" GET HEAD POST PUT PATCH DELETE OPTIONS ; return ;;
    credential-action) _accounts_offer "$2" get store erase ; return ;;
    account) word=accounts ;;
    backend) word=backends ;;
    adapter) word=adapters ;;
    command) word=commands ;;
    tag) word=tags ;;
    account-tag) word=tags ;;
    setting) word=settings ;;
    secret-setting) word=secret-settings ;;
    unsettable-setting) word=unsettable-settings ;;
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
  local breaks=${COMP_WORDBREAKS-$' \t\n"\'@><=;|&(:'} before prefix
  [[ -n $breaks ]] || return 0
  before=${1%["$breaks"]*}  # up to the last break character (shortest suffix: fast)
  [[ $before != "$1" ]] || return 0
  prefix=${1:0:${#before}+1}
  [[ $prefix == *[@\$] ]] && prefix=$before
  [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
  return 0
}

_accounts() {
  local -a _accounts_words _accounts_subcommands _accounts_options _accounts_arguments
  _accounts_line_words
  local cword=$((${#_accounts_words[@]} - 1))
  local cur=${_accounts_words[cword]} program=${_accounts_words[0]}
  # An opening quote is not part of the name: 'al completes like al (readline closes it).
  [[ $cur == [\'\"]* ]] && cur=${cur:1}
  local command_path='' word kind backend='' adapter='' account='' positional=0 arguments_only='' command_start='' i
  local _accounts_path _accounts_kind
  COMPREPLY=()
  # Quotes around a whole word before the cursor are the shell's, not the name's: the
  # program gets 'bob' as bob (zsh and fish unquote these words too).
  for ((i = 1; i < cword; i++)); do
    case ${_accounts_words[i]} in
      \'*\' | \"*\") _accounts_words[i]=${_accounts_words[i]:1:${#_accounts_words[i]}-2} ;;
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
