// Reads a QR code and a line of text from one image and counts the faces in another.
// Usage: QuickStart CARD-IMAGE PORTRAIT
import AnalyzeCore
import Foundation

let card = ImageRequestHandler(url: URL(fileURLWithPath: CommandLine.arguments[1]))
let (codes, page) = try card.perform(BarcodeRequest(), TextRequest(gate: .auto))
for code in codes { print("\(code.symbology): \(code.payload)") }
print("text: \(page.lines.first?.string ?? "")")
let faces = try await ImageRequestHandler(url: URL(fileURLWithPath: CommandLine.arguments[2])).perform(FaceRequest())
print("faces: \(faces.count)")
