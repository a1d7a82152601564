# make install PREFIX=/usr/local installs the binary, its private library (the Secret Service
# and the adapter host), the built-in adapters, the ABI header, the completions and the man pages where a
# system finds them. `make test` and `make demo` are the README's two commands.
PREFIX ?= /usr/local
DESTDIR ?=
BIN = $(shell swift build -c release --show-bin-path)
ADAPTERS = plain hmac signed

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
	ln -sf accounts $(DESTDIR)$(PREFIX)/bin/git-credential-accounts
	install -Dm755 $(BIN)/libAccountsPrivate.so $(DESTDIR)$(PREFIX)/lib/accounts/libAccountsPrivate.so
	for adapter in $(ADAPTERS); do \
	  install -Dm644 $(BIN)/lib$$adapter.so $(DESTDIR)$(PREFIX)/lib/accounts/adapters/$$adapter.so || exit 1; \
	done
	install -Dm644 Sources/CAccountsAdapter/include/accounts_adapter.h $(DESTDIR)$(PREFIX)/include/accounts_adapter.h
	install -Dm644 completions/accounts.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/accounts
	install -Dm644 completions/_accounts $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_accounts
	install -Dm644 completions/accounts.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/accounts.fish
	install -Dm644 man/accounts.1 $(DESTDIR)$(PREFIX)/share/man/man1/accounts.1
	install -Dm644 man/accounts-adapter.7 $(DESTDIR)$(PREFIX)/share/man/man7/accounts-adapter.7

# Also removes the two libraries installs before libAccountsPrivate.so put there.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/accounts $(DESTDIR)$(PREFIX)/bin/git-credential-accounts \
	  $(DESTDIR)$(PREFIX)/lib/accounts/libAccountsPrivate.so \
	  $(DESTDIR)$(PREFIX)/lib/accounts/libAccountsSecretService.so \
	  $(DESTDIR)$(PREFIX)/lib/accounts/libAccountsAdapterHost.so \
	  $(ADAPTERS:%=$(DESTDIR)$(PREFIX)/lib/accounts/adapters/%.so) \
	  $(DESTDIR)$(PREFIX)/include/accounts_adapter.h \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/accounts \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_accounts \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/accounts.fish \
	  $(DESTDIR)$(PREFIX)/share/man/man1/accounts.1 \
	  $(DESTDIR)$(PREFIX)/share/man/man7/accounts-adapter.7
	-rmdir $(DESTDIR)$(PREFIX)/lib/accounts/adapters $(DESTDIR)$(PREFIX)/lib/accounts
