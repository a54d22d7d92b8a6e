import NBCLI

NB.main()
