# make install PREFIX=/usr/local installs the binary, its Secret Service library, the completions
# and the man pages where a system finds them. `make test` and `make demo` are the README's two commands.
PREFIX ?= /usr/local
DESTDIR ?=
BIN = $(shell swift build -c release --show-bin-path)

.PHONY: build test demo generate install uninstall

build:
	swift build -c release

test:
	scripts/test

demo:
	scripts/demo

generate:
	scripts/generate

install: build
	install -Dm755 $(BIN)/accounts $(DESTDIR)$(PREFIX)/bin/accounts
	install -Dm755 $(BIN)/libAccountsSecretService.so $(DESTDIR)$(PREFIX)/lib/accounts/libAccountsSecretService.so
	install -Dm644 completions/accounts.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/accounts
	install -Dm644 completions/_accounts $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_accounts
	install -Dm644 completions/accounts.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/accounts.fish
	install -Dm644 man/accounts.1 $(DESTDIR)$(PREFIX)/share/man/man1/accounts.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/accounts \
	  $(DESTDIR)$(PREFIX)/lib/accounts/libAccountsSecretService.so \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/accounts \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_accounts \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/accounts.fish \
	  $(DESTDIR)$(PREFIX)/share/man/man1/accounts.1
