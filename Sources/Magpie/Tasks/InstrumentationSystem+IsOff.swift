import Instrumentation

extension InstrumentationSystem {
    /// Whether no instrument is bootstrapped or bound to the task: then spans are not even
    /// made. Finding the tracer (`InstrumentationSystem.tracer`) casts the instrument to a
    /// protocol, a few hundred nanoseconds that every stage and every memory hit would pay.
    package static var isOff: Bool { instrument is NoOpInstrument }
}
