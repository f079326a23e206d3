// How long a test waits for something that should happen: the wait ends on the event itself,
// so this is only a guard against a hang, and a test that passes never waits it out. It is long
// because the CI runs every suite side by side on two cores, beside other work: synchronous
// tests run on their own lane (OwnLane.swift) so that they no longer hold the cooperative pool,
// but a loaded machine still stretches a wait, and a CI run beside a build once took a
// 60-second bound past its end (before the lane).

/// The seconds a test waits for an event before calling it a hang.
public let patienceAgainstHanging: Double = 300
