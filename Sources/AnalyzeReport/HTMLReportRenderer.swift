import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import Foundation

/// Renders `index.html`: one self-contained page (no network, no external assets; opens from
/// `file://`) with the failed images first (listed once, without a card), then a card per analysed image (thumbnail of its annotated
/// PNG linking to the PNG, SVG and JSON; counts per kind; barcode payloads; first lines of text),
/// filters by kind and a search box.
///
/// Every string from an image is escaped with ``MarkupEscaping``. As a second wall, a
/// Content-Security-Policy allows only the page's own script, by its SHA-256, so markup that
/// slipped through escaping still could not run anything.
public enum HTMLReportRenderer {
    /// One image of the report and the folder (relative to the report) holding its outputs.
    public struct Card: Sendable {
        public let digest: ImageDigest
        public let folder: String
        /// The input image, relative to the report and percent-encoded: shown under the SVG
        /// overlay in the detail view (nil: the annotated image is shown instead).
        public let inputHref: String?

        public init(digest: ImageDigest, folder: String, inputHref: String? = nil) {
            self.digest = digest
            self.folder = folder
            self.inputHref = inputHref
        }
    }

    /// Input formats a browser shows in an `<img>`.
    static let browserImageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "gif", "webp", "bmp"]

    public static func html(summary: RunSummary, cards: [Card]) -> String {
        let e: (String) -> String = { MarkupEscaping.escape($0) }
        let scriptHash = Data(ContentHash.sha256(Array(script.utf8))).base64EncodedString()
        let failed = cards.filter { $0.digest.status != .ok }
        let kinds = summary.requests.kinds
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src 'sha256-\(scriptHash)'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>analyze report: \(summary.images.total) images</title>
            <style>\(style)</style>
            </head>
            <body>
            <header>
            <h1>analyze report</h1>
            <p class="totals">\(summary.images.total) images: \(summary.images.analysed) analysed, \(summary.images.failed) failed, \(summary.images.checkFailed) failed a check.
            """
        for kind in kinds {
            out +=
                " <span class=\"total \(kind.rawValue)\">\(e(kind.rawValue)): \(summary.totals[kind.rawValue] ?? 0)</span>"
        }
        out += "</p>\n"
        if let missing = summary.missingShards, !missing.isEmpty {
            out +=
                "<p class=\"missing-shards\" role=\"alert\">Incomplete: shard(s) \(e(missing.joined(separator: ", "))) of the batch were not merged; their images are not in this report.</p>\n"
        }
        if !summary.checks.isEmpty {
            out += "<p class=\"checks\">Checks: \(e(summary.checks.map(\.description).joined(separator: ", ")))</p>\n"
        }
        out +=
            "<nav id=\"controls\"><input id=\"search\" type=\"search\" placeholder=\"Search payloads and text…\" aria-label=\"Search\">"
        out += "<label><input type=\"checkbox\" id=\"only-failed\"> failed only</label>"
        for kind in kinds {
            out +=
                "<label><input type=\"checkbox\" class=\"kind-filter\" value=\"\(kind.rawValue)\"> with \(kind.rawValue)</label>"
        }
        let labels = Set(cards.flatMap { $0.digest.labels.values.joined() }).sorted()
        if !labels.isEmpty {
            out += "<label>label <select id=\"label-filter\"><option value=\"\">any</option>"
            out += labels.map { "<option value=\"\(e($0.lowercased()))\">\(e($0))</option>" }.joined()
            out += "</select></label>"
        }
        out += "<span id=\"shown\"></span></nav>\n</header>\n"
        out += runDetails(summary)

        if !failed.isEmpty {
            out += "<section id=\"failures\"><h2>Failed (\(failed.count))</h2><ul>\n"
            for card in failed {
                let reason =
                    card.digest.status != .checkFailed
                    ? "\(card.digest.errorMessage ?? "failed") [\(card.digest.errorCode ?? "?")]"
                    : card.digest.checkFailures.joined(separator: "; ")
                out +=
                    "<li class=\"failure\"><span class=\"file\">\(e(card.digest.label))</span>: <span class=\"reason\">\(e(reason))</span></li>\n"
            }
            out += "</ul></section>\n"
        }

        // An image that could not be analysed is listed once, under "Failed"; it has no card.
        out += "<main id=\"cards\">\n"
        for card in cards where card.digest.status != .failed {
            out += self.card(card, kinds: kinds, outputs: summary.outputs)
        }
        out += "</main>\n"
        out +=
            "<dialog id=\"detail\" aria-label=\"Image details\"><form method=\"dialog\"><button class=\"close\" aria-label=\"Close\">×</button></form>"
        out += "<h2 class=\"title\"></h2><div class=\"layers\" role=\"group\" aria-label=\"Layers\"></div>"
        out +=
            "<div class=\"stage\"><img class=\"photo\" alt=\"\"><img class=\"overlay\" alt=\"\"></div><div class=\"observations\"></div></dialog>\n"
        out += "<script>\(script)</script>\n</body>\n</html>\n"
        return out
    }

    static func card(_ card: Card, kinds: [ObservationKind], outputs: OutputLayout) -> String {
        let e: (String) -> String = { MarkupEscaping.escape($0) }
        let d = card.digest
        let folder = card.folder.isEmpty ? "" : card.folder + "/"
        func link(_ file: OutputLayout.File) -> String {
            e(folder + urlComponent(outputs.name(of: file, for: d.outputName, input: d.file)))
        }
        let present = kinds.filter { (d.counts[$0.rawValue] ?? 0) > 0 }.map(\.rawValue)
        let labels = d.labels.sorted { $0.key < $1.key }.flatMap(\.value).map { $0.lowercased() }
        var out =
            "<article class=\"card \(d.status.rawValue)\" data-kinds=\"\(present.joined(separator: " "))\" data-status=\"\(d.status.rawValue)\""
        // What the detail view shows: the input under the SVG overlay (layers by fragment), or the annotated image.
        let showsInput =
            outputs.svg && card.inputHref != nil && d.sequence == nil
            && browserImageExtensions.contains((d.file as NSString).pathExtension.lowercased())
        // A sequence shows its contact sheet where an image shows its annotated copy.
        let picture: OutputLayout.File = d.sequence == nil ? .annotated : .contactSheet
        if showsInput, let input = card.inputHref {
            out += " data-photo=\"\(e(input))\" data-overlay=\"\(link(.overlay))\""
        } else if outputs.png {
            out += " data-photo=\"\(link(picture))\""
        }
        if outputs.json { out += " data-json=\"\(link(.json))\"" }
        out +=
            " data-labels=\"\(e(labels.joined(separator: "|")))\" data-search=\"\(e((d.searchText ?? "").lowercased()))\">\n"
        if d.status != .failed && outputs.png {
            out +=
                "<a href=\"\(link(d.sequence == nil ? .annotated : .video))\"><img loading=\"lazy\" src=\"\(link(picture))\" alt=\"annotated \(e(d.label))\"></a>\n"
        }
        out += "<h3 class=\"file\">\(e(d.label))</h3>\n"
        if d.status != .failed { out += "<button type=\"button\" class=\"details\">Details</button>\n" }
        if d.status == .failed {
            out += "<p class=\"error\">\(e(d.errorMessage ?? "failed")) [\(e(d.errorCode ?? "?"))]</p>\n"
        } else {
            if d.status == .partial {
                out += "<p class=\"error\">\(e(d.errorMessage ?? "failed")) [\(e(d.errorCode ?? "?"))]</p>\n"
            }
            let links: [(Bool, OutputLayout.File, String)] =
                d.sequence != nil
                ? [
                    (outputs.png, .video, "video"), (outputs.png, .contactSheet, "contact sheet"),
                    (outputs.json, .json, "JSON"),
                ]
                : [(outputs.png, .annotated, "PNG"), (outputs.svg, .overlay, "SVG"), (outputs.json, .json, "JSON")]
            out +=
                "<p class=\"links\">"
                + links.filter(\.0).map { "<a href=\"\(link($0.1))\">\($0.2)</a>" }.joined(separator: " ")
            if let w = d.width, let h = d.height { out += " <span class=\"size\">\(w)×\(h)</span>" }
            if let o = d.orientation, o != 1 { out += " <span class=\"orientation\">orientation \(o)</span>" }
            out += "</p>\n<ul class=\"counts\">"
            for kind in kinds {
                out += "<li class=\"\(kind.rawValue)\">\(kind.rawValue): \(d.counts[kind.rawValue] ?? 0)</li>"
            }
            out += "</ul>\n"
            if let sequence = d.sequence { out += Self.sequenceSummary(sequence) }
            for failure in d.checkFailures { out += "<p class=\"check-failure\">\(e(failure))</p>\n" }
            if !d.payloads.isEmpty {
                out += "<ul class=\"payloads\">" + d.payloads.map { "<li>\(e($0))</li>" }.joined() + "</ul>\n"
            }
            if !d.textPreview.isEmpty {
                out += "<pre class=\"text\">\(e(d.textPreview.joined(separator: "\n")))</pre>\n"
            }
        }
        return out + "</article>\n"
    }

    /// A sequence's frames and tracks: `video, 80 of 795 frames analysed, 12 tracks`, then the
    /// longest tracks (ID, what, first and last frame, why it ended).
    static func sequenceSummary(_ s: ImageDigest.SequenceDigest) -> String {
        let e: (String) -> String = { MarkupEscaping.escape($0) }
        var out = "<p class=\"sequence\">\(e(s.source)), \(s.framesAnalysed) of \(s.framesRead) frames analysed"
        if s.framesDropped > 0 { out += ", \(s.framesDropped) dropped" }
        if let duration = s.duration { out += String(format: ", %.1f s", duration) }
        out += ", \(s.trackCount) track(s)</p>\n"
        guard !s.tracks.isEmpty else { return out }
        out += "<table class=\"tracks\"><tr><th>track</th><th>what</th><th>frames</th><th>end</th></tr>"
        for t in s.tracks {
            let what = t.label.map { "\(t.kind): \($0)" } ?? t.kind
            out +=
                "<tr><td>#\(t.trackID)</td><td>\(e(MarkupEscaping.label(what, limit: 60)))</td><td>\(t.firstFrame)–\(t.lastFrame)</td><td>\(e(t.end.rawValue))</td></tr>"
        }
        out += "</table>\n"
        if s.trackCount > s.tracks.count {
            out +=
                "<p class=\"sequence\">and \(s.trackCount - s.tracks.count) shorter track(s): every track is in the JSON</p>\n"
        }
        return out
    }

    /// The run itself: version, options, and two small bar charts: observations per kind, and
    /// worker time per image per stage (where the time went).
    static func runDetails(_ summary: RunSummary) -> String {
        let e: (String) -> String = { MarkupEscaping.escape($0) }
        var out = "<details id=\"run\"><summary>Run: analyze \(e(summary.toolVersion)), \(summary.jobs) job(s)"
        if summary.wallSeconds > 0 { out += String(format: ", %.2f s", summary.wallSeconds) }
        out += "</summary>\n"
        let options =
            (try? JSONRenderer.encode(summary.requests, pretty: false)).map { String(decoding: $0, as: UTF8.self) }
            ?? ""
        out += "<p class=\"options\"><b>Options</b> <code>\(e(options))</code></p>\n"
        let counts = summary.totals.sorted { $0.key < $1.key }
        if let most = counts.map(\.value).max(), most > 0 {
            out += "<figure class=\"chart\" id=\"chart-counts\"><figcaption>Found, per kind</figcaption>"
            for (kind, n) in counts {
                out +=
                    "<div class=\"bar\"><span class=\"name\">\(e(kind))</span><span class=\"fill\" style=\"width:\(max(1, 100 * n / most))%\"></span><span class=\"value\">\(n)</span></div>"
            }
            out += "</figure>\n"
        }
        let images = max(1, summary.images.analysed)
        let stages = summary.timings.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        if let slowest = stages.map(\.value).max(), slowest > 0 {
            out +=
                "<figure class=\"chart\" id=\"chart-time\"><figcaption>Worker time per image, per stage (ms)</figcaption>"
            for (stage, seconds) in stages {
                let width = max(1, Int((100 * seconds / slowest).rounded()))
                out +=
                    "<div class=\"bar\"><span class=\"name\">\(e(stage))</span><span class=\"fill\" style=\"width:\(width)%\"></span>"
                out += String(format: "<span class=\"value\">%.1f</span></div>", 1000 * seconds / Double(images))
            }
            out += "</figure>\n"
        }
        return out + "</details>\n"
    }

    static func urlComponent(_ name: String) -> String {
        name.addingPercentEncoding(
            withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? name
    }

    /// The page's only script: filters and search over the cards' text (textContent, never HTML).
    static let script = """
        (function () {
          var search = document.getElementById('search');
          var onlyFailed = document.getElementById('only-failed');
          var kindBoxes = Array.prototype.slice.call(document.querySelectorAll('.kind-filter'));
          var cards = Array.prototype.slice.call(document.querySelectorAll('article.card'));
          var shown = document.getElementById('shown');
          var labelFilter = document.getElementById('label-filter');
          function update() {
            var q = search.value.trim().toLowerCase();
            var kinds = kindBoxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
            var n = 0;
            cards.forEach(function (card) {
              var has = (card.getAttribute('data-kinds') || '').split(' ');
              var ok = (!q || card.textContent.toLowerCase().indexOf(q) >= 0 || (card.getAttribute('data-search') || '').indexOf(q) >= 0)
                && (!onlyFailed.checked || card.getAttribute('data-status') !== 'ok')
                && kinds.every(function (k) { return has.indexOf(k) >= 0; })
                && (!labelFilter || !labelFilter.value || (card.getAttribute('data-labels') || '').split('|').indexOf(labelFilter.value) >= 0);
              card.hidden = !ok;
              if (ok) { n += 1; }
            });
            shown.textContent = n + ' of ' + cards.length + ' shown';
          }
          search.addEventListener('input', update);
          onlyFailed.addEventListener('change', update);
          kindBoxes.forEach(function (b) { b.addEventListener('change', update); });
          if (labelFilter) { labelFilter.addEventListener('change', update); }
          var detail = document.getElementById('detail');
          function openDetail(card) {
            var photo = detail.querySelector('img.photo'), overlay = detail.querySelector('img.overlay');
            var layers = detail.querySelector('.layers'), lists = detail.querySelector('.observations');
            detail.querySelector('.title').textContent = card.querySelector('h3.file').textContent;
            photo.src = card.getAttribute('data-photo') || '';
            var svg = card.getAttribute('data-overlay');
            overlay.hidden = !svg;
            overlay.src = svg || '';
            layers.textContent = '';
            if (svg) {
              ['all'].concat((card.getAttribute('data-kinds') || '').split(' ').filter(Boolean)).forEach(function (kind, i) {
                var b = document.createElement('button');
                b.type = 'button'; b.textContent = kind; b.setAttribute('data-layer', kind);
                b.setAttribute('aria-pressed', i === 0 ? 'true' : 'false');
                b.addEventListener('click', function () {
                  overlay.src = svg + (kind === 'all' ? '' : '#only-' + kind);
                  Array.prototype.forEach.call(layers.children, function (x) { x.setAttribute('aria-pressed', x === b ? 'true' : 'false'); });
                });
                layers.appendChild(b);
              });
            }
            lists.textContent = '';
            ['ul.counts', 'ul.payloads', 'pre.text', 'p.error', 'p.check-failure'].forEach(function (sel) {
              Array.prototype.forEach.call(card.querySelectorAll(sel), function (n) { lists.appendChild(n.cloneNode(true)); });
            });
            var json = card.getAttribute('data-json');
            if (json) { var a = document.createElement('a'); a.href = json; a.textContent = 'JSON'; lists.appendChild(a); }
            detail.showModal();
          }
          cards.forEach(function (card) {
            var b = card.querySelector('button.details');
            if (b) { b.addEventListener('click', function () { openDetail(card); }); }
          });
          update();
          document.body.setAttribute('data-ready', 'yes');
        })();
        """

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#222}
        header{position:sticky;top:0;background:#fff;padding:8px 16px;border-bottom:1px solid #ddd;z-index:1}
        h1{font-size:18px;margin:0 0 4px}.totals .total{margin-left:8px;padding:1px 6px;border-radius:8px;background:#eef}
        nav label{margin-left:12px}#search{width:280px;padding:4px}#shown{margin-left:12px;color:#666}
        #failures{margin:12px 16px;padding:8px 12px;background:#fff0f0;border:1px solid #e99;border-radius:6px}
        #failures h2{font-size:15px;margin:0 0 4px;color:#a00}
        main{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:12px;padding:16px}
        .card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px;overflow:hidden}
        .card.failed{border-color:#e99;background:#fff6f6}.card.check-failed{border-color:#e9b949}
        .card img{width:100%;max-height:220px;object-fit:contain;background:#eee}
        .card h3{font-size:13px;margin:6px 0;word-break:break-all}.counts{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:6px}
        .counts li{padding:0 6px;border-radius:8px;background:#eef;font-size:12px}
        .tracks{font-size:12px;border-collapse:collapse}.tracks td,.tracks th{padding:0 6px;text-align:left}.sequence{font-size:12px;margin:4px 0}
        .payloads{margin:4px 0;padding-left:18px;font-family:monospace;font-size:12px;word-break:break-all}
        pre.text{white-space:pre-wrap;font-size:12px;background:#f8f8f8;padding:4px;margin:4px 0;max-height:8em;overflow:hidden}
        .error,.check-failure{color:#a00}
        dialog#detail{width:min(96vw,1100px);max-height:94vh;overflow:auto;border:1px solid #aaa;border-radius:8px;padding:10px}
        dialog#detail .close{float:right;font-size:18px}dialog#detail h2{font-size:14px;margin:0 0 6px;word-break:break-all}
        .stage{position:relative}.stage img{display:block;width:100%;height:auto}.stage img.overlay{position:absolute;left:0;top:0}
        .layers button{margin:0 4px 6px 0}.layers button[aria-pressed=true]{background:#335;color:#fff}
        .card button.details{font-size:12px}
        .missing-shards{margin:6px 0;padding:4px 8px;background:#fff3cd;border:1px solid #e9b949;border-radius:4px}
        #run{margin:8px 16px;background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px 10px}
        #run code{font-size:11px;word-break:break-all}.chart{margin:6px 0}.chart figcaption{font-weight:bold;font-size:12px}
        .bar{display:flex;align-items:center;gap:6px;font-size:12px}.bar .name{width:110px;overflow:hidden;text-overflow:ellipsis}
        .bar .fill{height:10px;background:#7a9cc6;border-radius:2px;flex:none;max-width:55%}.bar .value{color:#555}
        @media (max-width:500px){#search{width:100%;box-sizing:border-box}nav label{display:inline-block;margin:4px 8px 0 0}
        main{grid-template-columns:1fr;padding:8px}header{position:static}#failures{margin:8px}}
        """
}
