import NBCLI

NB.main(arguments: Array(CommandLine.arguments.dropFirst()))
