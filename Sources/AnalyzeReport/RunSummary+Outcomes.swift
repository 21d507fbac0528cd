import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput

extension BatchRunner {
    /// The run's summary (`summary.json`, the report, JUnit) from the outcomes ``run(onOutcome:)``
    /// returned: counts, totals, failures and the stages' time, with the run's requests, checks,
    /// outputs and jobs. `shard` is the slice this run analysed, if any.
    public func summary(of outcomes: [ImageOutcome], wallSeconds: Double, shard: Shard? = nil) -> RunSummary {
        var timings = StageTimings()
        for outcome in outcomes { timings.add(outcome.timings) }
        var summary = RunSummary(
            requests: requests, checks: checks, outputs: output?.layout ?? OutputLayout(),
            entries: outcomes.map(\.digest), timings: timings)
        summary.images.resumed = outcomes.filter(\.resumed).count
        summary.wallSeconds = (wallSeconds * 1000).rounded() / 1000
        summary.jobs = jobs
        summary.shard = shard?.description
        return summary
    }
}
