// swift-tools-version:6.0
// An example of a package that uses seqplay as a library, by version, as any user's package would:
//     .package(url: "https://example.com/seqplay.git", from: "0.14.0")
// Scripts/test-example points SEQPLAY_URL at a tagged clone of this checkout, builds this package and
// runs it from the checkout's root (it renders Songs/bach-prelude-c.mid with SoundFonts/seqplay-gm.sf2).
import PackageDescription

let seqplay = Context.environment["SEQPLAY_URL"] ?? "https://github.com/seqplay/seqplay.git"

let package = Package(
    name: "RenderSong",
    dependencies: [
        .package(url: seqplay, from: "0.14.0"),
    ],
    targets: [
        .executableTarget(name: "RenderSong", dependencies: [.product(name: "SeqplayKit", package: "seqplay")]),
    ]
)
