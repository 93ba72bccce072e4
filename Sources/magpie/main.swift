import MagpieCLI

await MagpieCommand.runAndExit()
