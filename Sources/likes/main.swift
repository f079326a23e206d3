print("likes")
