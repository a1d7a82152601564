import AccountsCLI
import Glibc

exit(AccountsCommandLine.main())
