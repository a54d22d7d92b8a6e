print("nb")
