/// The names objects are reported under. Darknet's `coco.names` (the file YOLOv4-tiny ships with)
/// spells six of the 80 COCO classes as PASCAL VOC does; analyze reports COCO's own names, and a query
/// (`--require object=sofa`) in either spelling matches.
public enum ClassNameSpelling {
    /// Darknet's spelling → COCO's.
    public static let cocoNames: [String: String] = [
        "aeroplane": "airplane", "diningtable": "dining table", "motorbike": "motorcycle",
        "pottedplant": "potted plant", "sofa": "couch", "tvmonitor": "tv",
    ]

    /// COCO's name for `name` (compared in lower case), or `name` itself.
    public static func coco(_ name: String) -> String {
        cocoNames[name.lowercased()] ?? name
    }
}
