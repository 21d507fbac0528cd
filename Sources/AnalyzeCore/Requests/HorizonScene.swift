import Foundation

/// Whether a photo shows a scene with a horizon, judged from an ImageNet classifier's labels: the
/// probability it gives to places, craft and animals of open views. The classes were chosen by what
/// they depict, not fitted: a far line between sky and water or land is part of nearly every photo
/// of them, and of almost no portrait, room, object or page.
enum HorizonScene {
    /// ImageNet classes of open views.
    static let openViewClasses: Set<String> = [
        // Places.
        "alp", "cliff", "geyser", "lakeside", "promontory", "sandbar", "seashore", "valley", "volcano",
        // At the water's edge.
        "breakwater", "dock", "pier", "boathouse", "beacon", "dam", "suspension bridge", "steel arch bridge", "viaduct",
        // Craft on open water.
        "aircraft carrier", "amphibian", "canoe", "catamaran", "container ship", "fireboat", "gondola", "lifeboat",
        "liner",
        "paddle", "paddlewheel", "pirate", "schooner", "speedboat", "submarine", "trimaran", "wreck", "yawl",
        // Fields and open country.
        "hay", "harvester", "thresher", "plow", "oxcart", "worm fence", "rapeseed", "corn", "ear", "megalith",
        "mountain tent", "yurt",
        // Animals of plains and shores.
        "zebra", "hartebeest", "impala", "gazelle", "ostrich", "bison", "Arabian camel", "African elephant",
        "albatross",
        "pelican", "oystercatcher", "redshank", "dowitcher", "red-backed sandpiper", "king penguin", "sea lion",
        "grey whale", "killer whale",
        // Seen from the air or against the sky over land.
        "wing", "airship", "balloon", "parachute",
    ]

    /// How many of the classifier's best labels are summed (the rest are all but zero).
    static let labelsRead = 100

    /// The summed probability of the open-view classes, 0–1.
    static func openView(_ labels: [ClassificationObservation]) -> Double {
        min(1, labels.filter { openViewClasses.contains($0.identifier) }.reduce(0) { $0 + $1.confidence })
    }

    /// A horizon's confidence from the scene's open-view probability and, when the search had a sky map
    /// (`HorizonSky`), the map's mean sky probability above the line: a logistic fit of "the line is the
    /// horizon" on the lines found in the development set's splits a and b, so that it reads as the
    /// share of lines reported at it that are right (docs/benchmarks.md). The sky above counts because a
    /// portrait in front of a sea (people on a beach, a couple at a canyon's rim) has no open view to an
    /// ImageNet classifier, yet the map sees the sky above its horizon. The line's own strength is left
    /// out: on that set the strongest steps were as often a road, a rail or a deck's planks as the horizon.
    static func confidence(openView: Double, skyAbove: Double? = nil) -> Double {
        guard let sky = skyAbove else { return logistic(sceneWeight * logit(openView) + bias) }
        return logistic(mappedSceneWeight * logit(openView) + skyWeight * min(max(sky, 0), 1) + mappedBias)
    }

    /// Without a sky map (another scene classifier): the open view alone.
    static let sceneWeight = 0.81
    static let bias = 0.35
    /// With the sky map.
    static let mappedSceneWeight = 0.619
    static let skyWeight = 1.834
    static let mappedBias = -0.868

    private static func logistic(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

    private static func logit(_ p: Double) -> Double {
        let q = min(max(p, 0.001), 0.999)
        return log(q / (1 - q))
    }
}
