// How long a test waits for something that should happen: the wait ends on the event itself,
// so this is only a guard against a hang. It is long because the CI runs every suite side by
// side on two cores, where a debug build's observer can wait seconds for a thread.

/// The seconds a test waits for an event before calling it a hang.
public let patienceAgainstHanging: Double = 60
