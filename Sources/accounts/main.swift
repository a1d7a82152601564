import AccountsCLI

AccountsCommandLine.exit(AccountsCommandLine.main())
