# fish completion for accounts
# Generated from the command table by `accounts completion fish`; do not edit.
# Install it as ~/.config/fish/completions/accounts.fish (`make install` puts it in
# fish's vendor completions directory).

# The command path a word leads to from a command path; nothing for an unknown word.
function __accounts_next --argument-names path word
    switch "$path:$word"
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
        case ':current'
            echo 'current'
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

# The completion kind of an option's value; fails for options without a value.
function __accounts_option_kind --argument-names option
    switch $option
        case --backend
            echo backend
        case --adapter
            echo adapter
        case --set
            echo none
        case --secret-stdin
            echo none
        case --secret
            echo none
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
complete -c accounts -n '__accounts_at '\'''\''' -a list -d 'show every saved account (the default command)'
complete -c accounts -n '__accounts_at '\'''\''' -a add -d 'save an account'
complete -c accounts -n '__accounts_at '\'''\''' -a remove -d 'forget an account and every secret of it'
complete -c accounts -n '__accounts_at '\'''\''' -a password -d 'print the remembered password (autofill)'
complete -c accounts -n '__accounts_at '\'''\''' -a passwd -d 'replace the remembered password'
complete -c accounts -n '__accounts_at '\'''\''' -a current -d 'show the account in the auto-login slot'
complete -c accounts -n '__accounts_at '\'''\''' -a clear -d 'forget every account'
complete -c accounts -n '__accounts_at '\'''\''' -a backend -d 'manage backends (login targets)'
complete -c accounts -n '__accounts_at '\'''\''' -a adapters -d 'list the login adapters found, or why one was refused'
complete -c accounts -n '__accounts_at '\'''\''' -a doctor -d 'check the keyring, the index, the config and the adapters'
complete -c accounts -n '__accounts_at '\'''\''' -a lock -d 'lock the keyring collection'
complete -c accounts -n '__accounts_at '\'''\''' -a completion -d 'print the shell completion script for bash, zsh or fish'
complete -c accounts -n '__accounts_at '\'''\''' -a help -d 'show help for accounts or for one command'
complete -c accounts -n '__accounts_at '\''add'\''' -l remember -d 'remember the password in the Secret Service (asked for without echo, or read with --password-stdin)'
complete -c accounts -n '__accounts_at '\''add'\''' -l password-stdin -d 'read the password from stdin (one line) instead of asking'
complete -c accounts -n '__accounts_at '\''remove'\''' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''password'\''' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''passwd'\''' -l password-stdin -d 'read the password from stdin (one line) instead of asking'
complete -c accounts -n '__accounts_at '\''passwd'\''' -a '(__accounts_names accounts)'
complete -c accounts -n '__accounts_at '\''clear'\''' -s y -l yes -d 'do not ask for confirmation'
complete -c accounts -n '__accounts_at '\''backend'\''' -a add -d 'add a backend'
complete -c accounts -n '__accounts_at '\''backend'\''' -a list -d 'list the backends'
complete -c accounts -n '__accounts_at '\''backend'\''' -a show -d 'show a backend'\''s adapter and settings'
complete -c accounts -n '__accounts_at '\''backend'\''' -a test -d 'log in once through a backend'\''s adapter, keeping nothing'
complete -c accounts -n '__accounts_at '\''backend'\''' -a remove -d 'remove a backend and its secret settings'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l adapter -x -a '(__accounts_names adapters)' -d 'the adapter that speaks the backend'\''s protocol (see `accounts adapters`)'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l set -x -d 'a non-secret setting the adapter declares, e.g. base_url=https://api.corp.example'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l secret-stdin -x -d 'read the secret setting NAME from stdin (one line) instead of asking for it'
complete -c accounts -n '__accounts_at '\''backend add'\''' -l secret -x -d 'also ask for the optional secret setting NAME (required ones are always asked for)'
complete -c accounts -n '__accounts_at '\''backend show'\''' -a '(__accounts_names backends)'
complete -c accounts -n '__accounts_at '\''backend test'\''' -l password-stdin -d 'read the password from stdin (one line) instead of asking'
complete -c accounts -n '__accounts_at '\''backend test'\''' -a '(__accounts_names backends)'
complete -c accounts -n '__accounts_at '\''backend remove'\''' -l force -d 'also forget the backend'\''s saved accounts and their secrets'
complete -c accounts -n '__accounts_at '\''backend remove'\''' -a '(__accounts_names backends)'
complete -c accounts -n '__accounts_at '\''adapters'\''' -a '(__accounts_names adapters)'
complete -c accounts -n '__accounts_at '\''completion'\''' -a 'bash zsh fish'
complete -c accounts -n '__accounts_at '\''help'\''' -a '(__accounts_names commands)'
complete -c accounts -l json -d 'print machine-readable JSON on stdout, with stable keys'
complete -c accounts -l backend -x -a '(__accounts_names backends)' -d 'the backend that account names refer to (for USER without @BACKEND)'
complete -c accounts -s h -l help -d 'show help for the command and exit'
complete -c accounts -l version -d 'print the version and exit'
