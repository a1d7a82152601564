# make                     builds, as you, what an install ships: the release build linked for the
#                          installed layout (no file names the toolchain) and the Swift runtime
#                          it needs (scripts/swift-runtime).
# make install PREFIX=/usr/local   (sudo if need be) copies what `make` built, never builds: the
#                          binary, its private library (the Secret Service and the adapter host)
#                          and the Swift runtime in PREFIX/lib/accounts, the built-in adapters, the
#                          adapter ABI header and its pkg-config file, the completions and the man
#                          pages, where a system finds them.
# make deb                 builds accounts_VERSION_ARCH.deb and accounts-dev_VERSION_all.deb (the
#                          adapter ABI) (scripts/deb); its last line is accounts' path.
# make check-package       builds the package and proves it self-contained (scripts/check-package).
# make test, make demo     the README's two commands.
# VERSION is the one version: its first line is the version, its second the release date (the
# binary's --version, the man pages' .TH and the package take them from there).
PREFIX ?= /usr/local
DESTDIR ?=
# The installed layout's build has a directory of its own: SwiftPM keeps a build directory's
# plan while Package.swift is unchanged, so one directory cannot switch between the layouts.
SCRATCH = .build/installed
BIN = $(SCRATCH)/release
ADAPTERS = plain hmac signed oauth2
PRODUCTS = accounts AccountsPrivate $(ADAPTERS)
ZSH_COMPLETIONS ?= $(PREFIX)/share/zsh/site-functions
LIBDIR = $(PREFIX)/lib/accounts
# `sudo make deb` (or `sudo make`) builds as the user who ran sudo: a build directory root owns
# is one its user cannot rebuild, and a build runs package code.
AS_USER = $(if $(SUDO_USER),$(if $(filter 0,$(shell id -u)),sudo -u $(SUDO_USER) env PATH="$(PATH)"))

.PHONY: build test demo generate install uninstall deb check-package

# Only the products it installs (swift build takes one --product at a time): not the build-only
# generator (accounts-generate) nor the tests' helpers.
build:
	for product in $(PRODUCTS); do \
	  $(AS_USER) env ACCOUNTS_LAYOUT=installed swift build -c release --scratch-path $(SCRATCH) --product $$product || exit 1; \
	done
	$(AS_USER) scripts/swift-runtime $(BIN)/runtime $(BIN)/accounts $(BIN)/libAccountsPrivate.so $(ADAPTERS:%=$(BIN)/lib%.so)

test:
	scripts/test

demo:
	scripts/demo

generate:
	scripts/generate

deb: build
	scripts/deb

check-package:
	scripts/check-package

# Installs only what `make` built (so `sudo make install` never builds as root), and refuses a
# build linked against the toolchain.
install:
	@readelf -d $(BIN)/accounts 2>/dev/null | grep -q 'RUNPATH.*\$$ORIGIN/\.\./lib/accounts' && [ -d $(BIN)/runtime ] \
	  || { echo "make install: no build to install in $(BIN); run make first (as yourself, not root)" >&2; exit 1; }
	install -Dm755 $(BIN)/accounts $(DESTDIR)$(PREFIX)/bin/accounts
	ln -sf accounts $(DESTDIR)$(PREFIX)/bin/git-credential-accounts
	install -Dm644 -t $(DESTDIR)$(LIBDIR) $(BIN)/libAccountsPrivate.so $(BIN)/runtime/*.so
	for adapter in $(ADAPTERS); do \
	  install -Dm644 $(BIN)/lib$$adapter.so $(DESTDIR)$(LIBDIR)/adapters/$$adapter.so || exit 1; \
	done
	install -Dm644 Sources/CAccountsAdapter/include/accounts_adapter.h $(DESTDIR)$(PREFIX)/include/accounts/accounts_adapter.h
	mkdir -p $(DESTDIR)$(PREFIX)/share/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|' -e "s|@VERSION@|$$(sed -n 1p VERSION)|" scripts/accounts-adapter.pc.in \
	  > $(DESTDIR)$(PREFIX)/share/pkgconfig/accounts-adapter.pc
	chmod 644 $(DESTDIR)$(PREFIX)/share/pkgconfig/accounts-adapter.pc
	install -Dm644 completions/accounts.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/accounts
	install -Dm644 completions/_accounts $(DESTDIR)$(ZSH_COMPLETIONS)/_accounts
	install -Dm644 completions/accounts.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/accounts.fish
	install -Dm644 man/accounts.1 $(DESTDIR)$(PREFIX)/share/man/man1/accounts.1
	ln -sf accounts.1 $(DESTDIR)$(PREFIX)/share/man/man1/git-credential-accounts.1
	install -Dm644 man/accounts-adapter.7 $(DESTDIR)$(PREFIX)/share/man/man7/accounts-adapter.7
	install -Dm644 man/accounts-config.5 $(DESTDIR)$(PREFIX)/share/man/man5/accounts-config.5

# Also removes what earlier installs put elsewhere: the two libraries before
# libAccountsPrivate.so, and the header in PREFIX/include.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/accounts $(DESTDIR)$(PREFIX)/bin/git-credential-accounts \
	  $(DESTDIR)$(LIBDIR)/*.so \
	  $(ADAPTERS:%=$(DESTDIR)$(LIBDIR)/adapters/%.so) \
	  $(DESTDIR)$(PREFIX)/include/accounts/accounts_adapter.h \
	  $(DESTDIR)$(PREFIX)/include/accounts_adapter.h \
	  $(DESTDIR)$(PREFIX)/share/pkgconfig/accounts-adapter.pc \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/accounts \
	  $(DESTDIR)$(ZSH_COMPLETIONS)/_accounts \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/accounts.fish \
	  $(DESTDIR)$(PREFIX)/share/man/man1/accounts.1 $(DESTDIR)$(PREFIX)/share/man/man1/git-credential-accounts.1 \
	  $(DESTDIR)$(PREFIX)/share/man/man7/accounts-adapter.7 $(DESTDIR)$(PREFIX)/share/man/man5/accounts-config.5
	-rmdir $(DESTDIR)$(LIBDIR)/adapters $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/include/accounts
