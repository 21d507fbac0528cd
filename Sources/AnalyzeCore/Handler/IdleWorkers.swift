import Foundation

/// Workers with no image left to take, lent to the images still being analysed.
///
/// Without them, the last images of a batch (and the only image of a one-image run) have their
/// requests performed one after another while the other cores wait. A worker that finds no image
/// left waits here instead of ending; a worker analysing an image hands requests to the waiting
/// ones (``SharedRequests``), each performed with the engines of the worker that performs it.
/// Engines keep no state between images, so an image's observations do not depend on which worker
/// performed which request: the JSON is the same at every `--jobs`.
package final class IdleWorkers: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var tasks: [@Sendable (WorkerEngines) -> Void] = []
    private var waiting = 0
    private var takingImages: Int

    /// `imageWorkers`: how many workers take images; each calls ``serve(engines:tookImages:)`` with
    /// `tookImages` true once no image is left for it.
    package init(imageWorkers: Int) {
        takingImages = imageWorkers
    }

    /// Workers waiting for work that no posted task has claimed yet.
    var available: Int {
        condition.lock()
        defer { condition.unlock() }
        return max(0, waiting - tasks.count)
    }

    /// Hands `task` to a waiting worker, which runs it with its own engines.
    func post(_ task: @escaping @Sendable (WorkerEngines) -> Void) {
        condition.lock()
        tasks.append(task)
        condition.signal()
        condition.unlock()
    }

    /// Runs posted tasks with `engines` until no worker takes images any more. `tookImages`: the
    /// caller is one of the image workers, which has found no image left.
    package func serve(engines: WorkerEngines, tookImages: Bool) {
        condition.lock()
        if tookImages {
            takingImages -= 1
            if takingImages == 0 { condition.broadcast() }
        }
        waiting += 1
        while true {
            if !tasks.isEmpty {
                let task = tasks.removeFirst()
                waiting -= 1
                condition.unlock()
                task(engines)
                condition.lock()
                waiting += 1
            } else if takingImages <= 0 {
                break
            } else {
                condition.wait()
            }
        }
        waiting -= 1
        condition.unlock()
    }
}

/// The requests of one image, performed by the worker analysing it and by idle workers at once:
/// each takes the next request not yet taken (the costliest first) until none is left.
final class SharedRequests: @unchecked Sendable {
    private let requests: [any ImageRequest]
    private let image: UprightImage
    private let order: [Int]
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var next = 0
    private var running = 0
    private var outcomes: [Result<any RequestResult, AnalysisError>?]
    private var timings = StageTimings()

    init(_ requests: [any ImageRequest], on image: UprightImage) {
        self.requests = requests
        self.image = image
        outcomes = Array(repeating: nil, count: requests.count)
        order = requests.indices.sorted { (type(of: requests[$0]).cost, $1) > (type(of: requests[$1]).cost, $0) }
    }

    /// Performs requests with `engines` until none is left to take. The image's own worker passes
    /// `idleWorkers`: each time it takes a request, it hands the ones left to the workers then
    /// waiting (a worker that ran out of images while this image was under way joins it at its
    /// next request, not only at its start).
    func performUntilEmpty(engines: WorkerEngines, inviting idleWorkers: IdleWorkers? = nil) {
        while true {
            condition.lock()
            guard next < order.count else {
                condition.unlock()
                return
            }
            let index = order[next]
            next += 1
            running += 1
            let left = order.count - next
            condition.unlock()

            if let idleWorkers, left > 0 {
                for _ in 0..<min(idleWorkers.available, left) {
                    idleWorkers.post { self.performUntilEmpty(engines: $0) }
                }
            }

            var taken = StageTimings()
            let request = requests[index]
            let outcome: Result<any RequestResult, AnalysisError>
            do {
                outcome = .success(
                    try taken.measure(request.kind.rawValue) { () throws(AnalysisError) in
                        try request.performErased(on: image, engines: engines)
                    })
            } catch {
                outcome = .failure(error)
            }

            condition.lock()
            outcomes[index] = outcome
            timings.add(taken)
            running -= 1
            if running == 0 && next == order.count { condition.broadcast() }
            condition.unlock()
        }
    }

    /// Waits until every request has been taken and performed; returns the outcomes in the requests'
    /// order, and the time each took.
    func results() -> (outcomes: [Result<any RequestResult, AnalysisError>?], timings: StageTimings) {
        condition.lock()
        defer { condition.unlock() }
        while running > 0 || next < order.count { condition.wait() }
        return (outcomes, timings)
    }
}
