// libFuzzer targets for the two places untrusted bytes enter Magpie: the decoder entry point
// and the disk cache's entry parser. scripts/fuzz builds this with -sanitize=fuzzer and
// -DFUZZING; built normally it replays inputs instead, so a crash file can be re-run in a
// debugger: `MagpieFuzz decoder crash-1234`.
import Foundation

#if FUZZING
// SwiftPM links executables with `main` aliased to `MagpieFuzz_main`, so libFuzzer's own
// `main` is never pulled in; this one hands control to libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.selected.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@_cdecl("MagpieFuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
}
#else
@main
enum Replayer {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("usage: MagpieFuzz decoder|cache-entry FILE...\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            target.run(Array((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()))
            print("ok \(path)")
        }
    }
}
#endif
