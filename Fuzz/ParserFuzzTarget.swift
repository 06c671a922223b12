// SPDX-License-Identifier: MIT
// libFuzzer entry point for HTTPRequestParser. Compiled together with Sources/SandboxHTTP/*.swift in one
// module by scripts/fuzz.sh, so it calls ParserFuzzing directly, without `import SandboxHTTP`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    ParserFuzzing.run(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
