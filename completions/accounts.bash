# bash completion for accounts
# Generated from the command table by `accounts completion bash`; do not edit.
# Load it with `source <(accounts completion bash)`, or install it as
# /usr/share/bash-completion/completions/accounts (`make install` does).

# The command path a word leads to from a command path; nothing for an unknown word.
_accounts_next() {
  case "$1:$2" in
    ':list') echo 'list' ;;
    ':ls') echo 'list' ;;
    ':add') echo 'add' ;;
    ':remove') echo 'remove' ;;
    ':forget') echo 'remove' ;;
    ':password') echo 'password' ;;
    ':passwd') echo 'passwd' ;;
    ':current') echo 'current' ;;
    ':clear') echo 'clear' ;;
    ':backend') echo 'backend' ;;
    'backend:add') echo 'backend add' ;;
    'backend:list') echo 'backend list' ;;
    'backend:ls') echo 'backend list' ;;
    'backend:show') echo 'backend show' ;;
    'backend:test') echo 'backend test' ;;
    'backend:remove') echo 'backend remove' ;;
    'backend:rm') echo 'backend remove' ;;
    ':adapters') echo 'adapters' ;;
    ':doctor') echo 'doctor' ;;
    ':lock') echo 'lock' ;;
    ':completion') echo 'completion' ;;
    ':help') echo 'help' ;;
  esac
}

# Sets what may follow a command path: subcommands, options, and the completion kinds of
# its arguments (a kind ending in ... takes every remaining word).
_accounts_spec() {
  case "$1" in
    '')
      _accounts_subcommands='list add remove password passwd current clear backend adapters doctor lock completion help'
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='' ;;
    'list')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='' ;;
    'add')
      _accounts_subcommands=''
      _accounts_options='--remember --password-stdin --json --backend --help -h --version'
      _accounts_arguments='none' ;;
    'remove')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='account' ;;
    'password')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='account' ;;
    'passwd')
      _accounts_subcommands=''
      _accounts_options='--password-stdin --json --backend --help -h --version'
      _accounts_arguments='account' ;;
    'current')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='' ;;
    'clear')
      _accounts_subcommands=''
      _accounts_options='--yes -y --json --backend --help -h --version'
      _accounts_arguments='' ;;
    'backend')
      _accounts_subcommands='add list show test remove'
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='' ;;
    'backend add')
      _accounts_subcommands=''
      _accounts_options='--adapter --set --secret-stdin --secret --json --backend --help -h --version'
      _accounts_arguments='none' ;;
    'backend list')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='' ;;
    'backend show')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='backend' ;;
    'backend test')
      _accounts_subcommands=''
      _accounts_options='--password-stdin --json --backend --help -h --version'
      _accounts_arguments='backend none' ;;
    'backend remove')
      _accounts_subcommands=''
      _accounts_options='--force --json --backend --help -h --version'
      _accounts_arguments='backend' ;;
    'adapters')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='adapter' ;;
    'doctor')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='' ;;
    'lock')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='' ;;
    'completion')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='shell' ;;
    'help')
      _accounts_subcommands=''
      _accounts_options='--json --backend --help -h --version'
      _accounts_arguments='command...' ;;
  *) _accounts_subcommands='' _accounts_options='' _accounts_arguments='' ;;
  esac
}

# The completion kind of an option's value; fails for options without a value.
_accounts_option_kind() {
  case "$1" in
    --backend) echo backend ;;
    --adapter) echo adapter ;;
    --set) echo none ;;
    --secret-stdin) echo none ;;
    --secret) echo none ;;
  *) return 1 ;;
  esac
}

# Candidates of a kind ($1) for the current word ($2), asking the accounts being completed ($3)
# with the --backend typed so far ($4). Names come from the index and config only.
_accounts_candidates() {
  local IFS=$'\n' word
  case "$1" in
    shell) word='' ; COMPREPLY=($(compgen -W $'bash\nzsh\nfish' -- "$2")) ; return ;;
    account) word=accounts ;;
    backend) word=backends ;;
    adapter) word=adapters ;;
    command) word=commands ;;
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
