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
        case ':list'
            echo 'list'
        case ':ls'
            echo 'list'
        case ':add'
            echo 'add'
        case ':remove'
            echo 'remove'
        case ':forget'
            echo 'remove'
        case ':password'
            echo 'password'
        case ':passwd'
            echo 'passwd'
        case ':otp'
            echo 'otp'
        case 'otp:'
            echo 'otp code'
        case 'otp:code'
            echo 'otp code'
        case 'otp:set'
            echo 'otp set'
        case ':tag'
            echo 'tag'
        case ':untag'
            echo 'untag'
        case ':import'
            echo 'import'
        case ':export'
            echo 'export'
        case ':current'
            echo 'current'
        case ':login'
            echo 'login'
        case ':switch'
            echo 'switch'
        case ':logout'
            echo 'logout'
        case ':token'
            echo 'token'
        case ':exec'
            echo 'exec'
        case ':lease'
            echo 'lease'
        case ':release'
            echo 'release'
        case ':leases'
            echo 'leases'
        case ':env'
            echo 'env'
        case ':shell'
            echo 'shell'
        case ':hook'
            echo 'hook'
        case 'hook:add'
            echo 'hook add'
        case 'hook:remove'
            echo 'hook remove'
        case 'hook:rm'
            echo 'hook remove'
        case ':hooks'
            echo 'hooks'
        case ':request'
            echo 'request'
        case ':status'
            echo 'status'
        case ':which'
            echo 'which'
        case ':rules'
            echo 'rules'
        case ':rule'
            echo 'rule'
        case 'rule:add'
            echo 'rule add'
        case 'rule:remove'
            echo 'rule remove'
        case 'rule:rm'
            echo 'rule remove'
        case ':prompt'
            echo 'prompt'
        case ':git-credential'
            echo 'git-credential'
        case ':clear'
            echo 'clear'
        case ':backend'
            echo 'backend'
        case 'backend:add'
            echo 'backend add'
        case 'backend:list'
            echo 'backend list'
        case 'backend:ls'
            echo 'backend list'
        case 'backend:show'
            echo 'backend show'
        case 'backend:set'
            echo 'backend set'
        case 'backend:test'
            echo 'backend test'
        case 'backend:remove'
            echo 'backend remove'
        case 'backend:rm'
            echo 'backend remove'
        case ':adapters'
            echo 'adapters'
        case ':doctor'
            echo 'doctor'
        case ':lock'
            echo 'lock'
        case ':completion'
            echo 'completion'
        case ':help'
            echo 'help'
    end
end

# Succeeds for a command path that takes a subcommand.
function __accounts_is_group --argument-names command_path
    switch "$command_path"
        case '' 'otp' 'hook' 'rule' 'backend'
            return 0
    end
    return 1
end

# The completion kind of an option's value; fails for options without a value.
function __accounts_option_kind --argument-names option
    switch $option
        case --backend
            echo backend
        case --tag
            echo tag
        case --at
            echo none
        case --account
            echo account
        case --timeout
            echo none
        case --within
            echo none
        case --jobs -j
            echo none
        case --refresh-check
            echo none
        case --count
            echo none
        case --wait
            echo none
        case --ttl
            echo none
        case --shell
            echo shell
        case --adapter
            echo adapter
        case --set
            echo setting
        case --secret-stdin
            echo secret-setting
        case --secret
            echo secret-setting
        case --unset
            echo unsettable-setting
        case '*'
            return 1
    end
end

# Succeeds when argument INDEX of the command at the path given is optional and a METHOD
# follows it: a method word there is the METHOD (`request [USER] METHOD`).
function __accounts_method_after --argument-names command_path index
    switch "$command_path:$index"
        case 'request:0'
            return 0
    end
    return 1
end

# Succeeds for a command path whose last argument is a command line after -- (exec, lease).
function __accounts_takes_command --argument-names command_path
    switch "$command_path"
        case 'exec' 'lease'
            return 0
    end
    return 1
end

# Succeeds when argument INDEX of the command at the path given names an account.
function __accounts_is_account_argument --argument-names command_path index
    switch "$command_path:$index"
        case 'remove:0' 'password:0' 'passwd:0' 'otp code:0' 'otp set:0' 'tag:0' 'untag:0' 'login:0' 'switch:0' 'logout:0' 'token:0' 'exec:0' 'lease:0' 'env:0' 'shell:0' 'request:0' 'rule add:1'
            return 0
    end
    return 1
end

# Succeeds when argument INDEX of the command at the path given names a backend.
function __accounts_is_backend_argument --argument-names command_path index
    switch "$command_path:$index"
        case 'backend show:0' 'backend set:0' 'backend test:0' 'backend remove:0'
            return 0
    end
    return 1
end

# Succeeds for an HTTP method word, in any case (ASCII letters only, as the parser).
function __accounts_is_method --argument-names word
    string match -qr '^[a-zA-Z]+$' -- $word; or return 1
    contains -- (string upper -- $word) GET HEAD POST PUT PATCH DELETE OPTIONS
end

# Walks the words before the cursor: prints how many arguments follow the command, the
# command path (e.g. "backend add"), the account argument typed (or an empty line), then
# where the command line after exec's or lease's -- starts among the words before the
# cursor, from 1 (0: not after such a --), then the backend argument typed and the
# --adapter value typed (or empty lines). Fails at a word that is no command where a
# command was expected, and on a line where a word holds a newline: commandline -o
# prints one word per line, so that word would read as two (--adapter plain\nx as
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
                        printf '%s\n' $positional "$command_path" "$account" (math $index + 2) "$backend" "$adapter"
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
    printf '%s\n' $positional "$command_path" "$account" 0 "$backend" "$adapter"
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
    $words[1] $arguments $extra 2>/dev/null | string match -r -- '^(?!-)(?:[[:alnum:]._@+-]|[^\x00-\x7f\p{Cc}])+$'
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
complete -c accounts -n '__accounts_at '\'''\''' -a list -d 'show every saved account (the default command)'
complete -c accounts -n '__accounts_at '\'''\''' -a add -d 'save an account'
complete -c accounts -n '__accounts_at '\'''\''' -a remove -d 'forget an account and every secret of it'
complete -c accounts -n '__accounts_at '\'''\''' -a password -d 'print the remembered password (autofill)'
complete -c accounts -n '__accounts_at '\'''\''' -a passwd -d 'replace the remembered password'
complete -c accounts -n '__accounts_at '\'''\''' -a otp -d 'print the current one-time code (TOTP), or set the seed'
complete -c accounts -n '__accounts_at '\'''\''' -a tag -d 'add tags to an account'
complete -c accounts -n '__accounts_at '\'''\''' -a untag -d 'remove tags from an account'
complete -c accounts -n '__accounts_at '\'''\''' -a import -d 'save accounts from a CSV file'
complete -c accounts -n '__accounts_at '\'''\''' -a export -d 'print the saved accounts as CSV, for import'
complete -c accounts -n '__accounts_at '\'''\''' -a current -d 'show the account in the auto-login slot'
complete -c accounts -n '__accounts_at '\'''\''' -a login -d 'log in through the backend and keep the session'
complete -c accounts -n '__accounts_at '\'''\''' -a switch -d 'make an account the logged-in, auto-login one'
complete -c accounts -n '__accounts_at '\'''\''' -a logout -d 'end the session; the remembered password stays'
complete -c accounts -n '__accounts_at '\'''\''' -a token -d 'print the session token for scripts'
complete -c accounts -n '__accounts_at '\'''\''' -a exec -d 'run a command with the account'\''s session in its environment'
complete -c accounts -n '__accounts_at '\'''\''' -a lease -d 'check accounts out to one holder at a time (parallel test runs)'
complete -c accounts -n '__accounts_at '\'''\''' -a release -d 'end a detached lease early'
complete -c accounts -n '__accounts_at '\'''\''' -a leases -d 'show the live leases: account, lease, holder, since, expiry, fence'
complete -c accounts -n '__accounts_at '\'''\''' -a env -d 'print the account'\''s session as exports for eval'
complete -c accounts -n '__accounts_at '\'''\''' -a shell -d 'start $SHELL with the account'\''s session in its environment'
complete -c accounts -n '__accounts_at '\'''\''' -a hook -d 'add or remove a command run after switch, login or logout'
complete -c accounts -n '__accounts_at '\'''\''' -a hooks -d 'list the hooks, numbered'
complete -c accounts -n '__accounts_at '\'''\''' -a request -d 'call a backend API with the account'\''s session'
complete -c accounts -n '__accounts_at '\'''\''' -a status -d 'check every account'\''s session with its backend'
complete -c accounts -n '__accounts_at '\'''\''' -a which -d 'show the account a command here would use, and why'
complete -c accounts -n '__accounts_at '\'''\''' -a rules -d 'list the directory rules, longest directory first'
complete -c accounts -n '__accounts_at '\'''\''' -a rule -d 'add or remove a directory rule'
complete -c accounts -n '__accounts_at '\'''\''' -a prompt -d 'print a short segment for the shell prompt'
complete -c accounts -n '__accounts_at '\'''\''' -a git-credential -d 'git'\''s credential helper: the token of the account this directory uses'
complete -c accounts -n '__accounts_at '\'''\''' -a clear -d 'forget every account'
complete -c accounts -n '__accounts_at '\'''\''' -a backend -d 'manage backends (login targets)'
complete -c accounts -n '__accounts_at '\'''\''' -a adapters -d 'list the login adapters found, or why one was refused'
complete -c accounts -n '__accounts_at '\'''\''' -a doctor -d 'check the keyring, the index, the config and the adapters'
complete -c accounts -n '__accounts_at '\'''\''' -a lock -d 'lock the keyring collection'
complete -c accounts -n '__accounts_at '\'''\''' -a completion -d 'print the shell completion script for bash, zsh or fish'
complete -c accounts -n '__accounts_at '\'''\''' -a help -d 'show help for accounts or for one command'
complete -c accounts -n '__accounts_at '\''list'\''' -l tag -x -a '(__accounts_names tags)' -d 'only accounts with this tag; repeated, only those with every one'
complete -c accounts -n '__accounts_at '\''list'\''' -l names -d 'print only USER@BACKEND of each account, one per line'
complete -c accounts -n '__accounts_at '\''add'\''' -l remember -d 'remember the password in the Secret Service (asked for without echo, or read with --password-stdin)'
complete -c accounts -n '__accounts_at '\''add'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''remove'\''' -l force -d 'forget leased accounts too (their holders keep running)'
complete -c accounts -n '__accounts_argument_at '\''remove'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_argument_at '\''password'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''passwd'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_argument_at '\''passwd'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''otp'\''' -a code -d 'print the current one-time code'
complete -c accounts -n '__accounts_at '\''otp'\''' -a set -d 'store or remove an account'\''s one-time code seed'
complete -c accounts -n '__accounts_argument_at '\''otp'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''otp code'\''' -l at -x -d 'the code at this moment (seconds since 1970) instead of now, e.g. to check clocks'
complete -c accounts -n '__accounts_at '\''otp code'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''otp code'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''otp set'\''' -l remove -d 'delete the account'\''s seed instead of storing one'
complete -c accounts -n '__accounts_argument_at '\''otp set'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_argument_at '\''tag'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_argument_at '\''tag'\'' 1 variadic' -a '(__accounts_names tags)'
complete -c accounts -n '__accounts_argument_at '\''untag'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_argument_at '\''untag'\'' 1 variadic' -a '(__accounts_account_tags)'
complete -c accounts -n '__accounts_at '\''import'\''' -l tag -x -a '(__accounts_names tags)' -d 'give every account of the file this tag too; repeated, every one'
complete -c accounts -n '__accounts_at '\''import'\''' -l dry-run -d 'check the file and say what would happen; write nothing'
complete -c accounts -n '__accounts_at '\''import'\''' -l update -d 'update accounts saved already from their rows instead of skipping them'
complete -c accounts -n '__accounts_at '\''import'\''' -l partial -d 'import the good rows even when others have problems (then exit 1)'
complete -c accounts -n '__accounts_argument_at '\''import'\'' 0' -a '(__fish_complete_path (commandline -ct))'
complete -c accounts -n '__accounts_at '\''export'\''' -l tag -x -a '(__accounts_names tags)' -d 'only accounts with this tag; repeated, only those with every one'
complete -c accounts -n '__accounts_at '\''export'\''' -l with-passwords -d 'add the remembered passwords and OTP seeds, read from the Secret Service (a warning on stderr)'
complete -c accounts -n '__accounts_at '\''export'\''' -l spreadsheet-safe -d 'write a field a spreadsheet would run as a formula (=, +, -, @ first) with a '\'' in front; not for import'
complete -c accounts -n '__accounts_at '\''current'\''' -l check -d 'prove the session with the backend, logging in again once if it expired'
complete -c accounts -n '__accounts_at '\''current'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''current'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''login'\''' -l remember -d 'keep the password in the keyring for the next login'
complete -c accounts -n '__accounts_at '\''login'\''' -l auto -d 'also take the auto-login slot'
complete -c accounts -n '__accounts_at '\''login'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''login'\''' -l force -d 'log in even an account another holder leases (its holder'\''s session may end)'
complete -c accounts -n '__accounts_at '\''login'\''' -l stale -d 'log in again every chosen account whose session is gone or ends within --within'
complete -c accounts -n '__accounts_at '\''login'\''' -l tag -x -a '(__accounts_names tags)' -d 'with --stale: the accounts with this tag; repeated, those with every one'
complete -c accounts -n '__accounts_at '\''login'\''' -l within -x -d 'with --stale: also sessions that end within DURATION (default 10m)'
complete -c accounts -n '__accounts_at '\''login'\''' -s j -l jobs -x -d 'with --stale: at most N logins at once (default 4)'
complete -c accounts -n '__accounts_at '\''login'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''login'\''' -l no-hooks -d 'do not run the hooks (`accounts hooks`) for this command'
complete -c accounts -n '__accounts_at '\''login'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''login'\'' 0 variadic' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''switch'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''switch'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''switch'\''' -l no-hooks -d 'do not run the hooks (`accounts hooks`) for this command'
complete -c accounts -n '__accounts_argument_at '\''switch'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''logout'\''' -l force -d 'log out even an account another holder leases (its holder'\''s session ends)'
complete -c accounts -n '__accounts_at '\''logout'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''logout'\''' -l no-hooks -d 'do not run the hooks (`accounts hooks`) for this command'
complete -c accounts -n '__accounts_at '\''logout'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''logout'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''token'\''' -l check -d 'prove the session with the backend first'
complete -c accounts -n '__accounts_at '\''token'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''token'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''token'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''token'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''exec'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''exec'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''exec'\''' -l refresh -d 'keep the session live while CMD runs: renewed at 80% of its lifetime with its refresh token or the remembered password, its token always in the file $ACCOUNTS_TOKEN_FILE'
complete -c accounts -n '__accounts_at '\''exec'\''' -l refresh-check -x -d 'with --refresh: how often the backend is asked whether the session still lives, between renewals (default 60s; at least 1s)'
complete -c accounts -n '__accounts_at '\''exec'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''exec'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''lease'\''' -l tag -x -a '(__accounts_names tags)' -d 'lease from the accounts with this tag; repeated, from those with every one'
complete -c accounts -n '__accounts_at '\''lease'\''' -l count -x -d 'lease N accounts together, all or none (default 1)'
complete -c accounts -n '__accounts_at '\''lease'\''' -l wait -x -d 'wait up to DURATION for enough free accounts (e.g. 30s, 10m, 1h30m; default 0: only a moment'\''s contention)'
complete -c accounts -n '__accounts_at '\''lease'\''' -l ttl -x -d 'without CMD (required then): the lease ends after DURATION unless released first; with CMD and a Redis store: how soon a holder killed with SIGKILL frees its accounts (default 30s)'
complete -c accounts -n '__accounts_at '\''lease'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''lease'\''' -l refresh -d 'keep the session live while CMD runs: renewed at 80% of its lifetime with its refresh token or the remembered password, its token always in the file $ACCOUNTS_TOKEN_FILE'
complete -c accounts -n '__accounts_at '\''lease'\''' -l refresh-check -x -d 'with --refresh: how often the backend is asked whether the session still lives, between renewals (default 60s; at least 1s)'
complete -c accounts -n '__accounts_argument_at '\''lease'\'' 0 variadic' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''env'\''' -l shell -x -a 'bash zsh fish' -d 'write for bash, zsh or fish (default: the one $SHELL names, else bash)'
complete -c accounts -n '__accounts_at '\''env'\''' -l check -d 'prove the session with the backend first'
complete -c accounts -n '__accounts_at '\''env'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''env'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''env'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''env'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''shell'\''' -l force -d 'start one even inside a shell that `accounts shell` started'
complete -c accounts -n '__accounts_at '\''shell'\''' -l check -d 'prove the session with the backend first'
complete -c accounts -n '__accounts_at '\''shell'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''shell'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''shell'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''hook'\''' -a add -d 'run a command after switch, login or logout'
complete -c accounts -n '__accounts_at '\''hook'\''' -a remove -d 'remove a hook by its number'
complete -c accounts -n '__accounts_at '\''hook add'\''' -l account -x -a '(__accounts_names accounts)' -d 'run it only for this account (else --backend, else every account)'
complete -c accounts -n '__accounts_at '\''hook add'\''' -l with-token -d 'give the hook the session token as ACCOUNTS_TOKEN (switch and login only)'
complete -c accounts -n '__accounts_at '\''hook add'\''' -l timeout -x -d 'stop the hook after SECONDS (default 10)'
complete -c accounts -n '__accounts_argument_at '\''hook add'\'' 0' -a 'switch login logout'
complete -c accounts -n '__accounts_at '\''request'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''request'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''request'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_argument_at '\''request'\'' 0' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_argument_at '\''request'\'' 0' -a 'GET HEAD POST PUT PATCH DELETE OPTIONS'
complete -c accounts -n '__accounts_argument_at '\''request'\'' 1' -a 'GET HEAD POST PUT PATCH DELETE OPTIONS'
complete -c accounts -n '__accounts_at '\''status'\''' -s j -l jobs -x -d 'check at most N accounts at once (default 4)'
complete -c accounts -n '__accounts_at '\''status'\''' -l json-lines -d 'print one JSON object per line as each check ends (the objects of --json)'
complete -c accounts -n '__accounts_at '\''status'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_at '\''which'\''' -l explain -d 'say which step decided and what the other steps hold'
complete -c accounts -n '__accounts_at '\''which'\''' -l account -x -a '(__accounts_names accounts)' -d 'the account to use, as the USER argument would name it'
complete -c accounts -n '__accounts_at '\''rule'\''' -a add -d 'use an account inside a directory and below it'
complete -c accounts -n '__accounts_at '\''rule'\''' -a remove -d 'remove a directory rule'
complete -c accounts -n '__accounts_argument_at '\''rule add'\'' 0' -a '(__fish_complete_directories (commandline -ct))'
complete -c accounts -n '__accounts_argument_at '\''rule add'\'' 1' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_argument_at '\''rule remove'\'' 0' -a '(__fish_complete_directories (commandline -ct))'
complete -c accounts -n '__accounts_at '\''git-credential'\''' -l erase-logs-out -d 'when git erases a rejected token, delete it (the account stays the one in use, for the next login)'
complete -c accounts -n '__accounts_at '\''git-credential'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_argument_at '\''git-credential'\'' 0' -a 'get store erase'
complete -c accounts -n '__accounts_at '\''clear'\''' -s y -l yes -d 'do not ask for confirmation'
complete -c accounts -n '__accounts_at '\''clear'\''' -l force -d 'forget leased accounts too (their holders keep running)'
complete -c accounts -n '__accounts_at '\''backend'\''' -a add -d 'add a backend'
complete -c accounts -n '__accounts_at '\''backend'\''' -a list -d 'list the backends'
complete -c accounts -n '__accounts_at '\''backend'\''' -a show -d 'show a backend'\''s adapter and settings'
complete -c accounts -n '__accounts_at '\''backend'\''' -a set -d 'change a backend'\''s settings'
complete -c accounts -n '__accounts_at '\''backend'\''' -a test -d 'log in once through a backend'\''s adapter, keeping nothing'
complete -c accounts -n '__accounts_at '\''backend'\''' -a remove -d 'remove a backend and its secret settings'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l adapter -x -a '(__accounts_names adapters)' -d 'the adapter that speaks the backend'\''s protocol (see `accounts adapters`)'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l set -x -a '(__accounts_settings settings)' -d 'a non-secret setting the adapter declares, e.g. base_url=https://api.corp.example'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l secret-stdin -x -a '(__accounts_settings secret-settings)' -d 'read the secret setting NAME from stdin (its first line; given twice or more, one line each, in that order) instead of asking for it'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l secret -x -a '(__accounts_settings secret-settings)' -d 'also ask for the optional secret setting NAME (required ones are always asked for)'
complete -c accounts -n '__accounts_argument_at '\''backend show'\'' 0' -a '(__accounts_names backends)'
complete -c accounts -n '__accounts_at '\''backend set'\''' -l unset -x -a '(__accounts_settings unsettable-settings)' -d 'remove the setting KEY (the adapter'\''s default applies again; a secret one leaves the keyring)'
complete -c accounts -n '__accounts_at '\''backend set'\''' -l secret -x -a '(__accounts_settings secret-settings)' -d 'ask for a new value of the secret setting NAME without echo'
complete -c accounts -n '__accounts_at '\''backend set'\''' -l secret-stdin -x -a '(__accounts_settings secret-settings)' -d 'read the secret setting NAME from stdin (its first line; given twice or more, one line each, in that order) instead of asking for it'
complete -c accounts -n '__accounts_argument_at '\''backend set'\'' 0' -a '(__accounts_names backends)'
complete -c accounts -n '__accounts_argument_at '\''backend set'\'' 1 variadic' -a '(__accounts_settings settings)'
complete -c accounts -n '__accounts_at '\''backend test'\''' -l password-stdin -d 'read the password from stdin (its first line) instead of asking'
complete -c accounts -n '__accounts_at '\''backend test'\''' -l timeout -x -d 'give up on the backend after SECONDS, all of the command'\''s calls together (status and login --stale: per account; default: ACCOUNTS_NETWORK_TIMEOUT, else 20)'
complete -c accounts -n '__accounts_argument_at '\''backend test'\'' 0' -a '(__accounts_names backends)'
complete -c accounts -n '__accounts_at '\''backend remove'\''' -l force -d 'also forget the backend'\''s saved accounts and their secrets'
complete -c accounts -n '__accounts_argument_at '\''backend remove'\'' 0' -a '(__accounts_names backends)'
complete -c accounts -n '__accounts_argument_at '\''adapters'\'' 0' -a '(__accounts_names adapters)'
complete -c accounts -n '__accounts_argument_at '\''completion'\'' 0' -a 'bash zsh fish'
complete -c accounts -n '__accounts_argument_at '\''help'\'' 0 variadic' -a '(__accounts_names commands)'
complete -c accounts -l json -d 'print machine-readable JSON on stdout, with stable keys'
complete -c accounts -l backend -x -a '(__accounts_names backends)' -d 'the backend that account names refer to (for USER without @BACKEND)'
complete -c accounts -s q -l quiet -d 'print no status lines nor progress on stderr (errors and warnings still), e.g. in CI logs'
complete -c accounts -s h -l help -d 'show help for the command and exit'
complete -c accounts -l version -d 'print the version and exit'
