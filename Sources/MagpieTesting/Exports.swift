// Tests reach the loopback server and generated images through MagpieTesting, which adds what
// only tests use to them: faults and gates (Faults.swift, Gate.swift) and malformed files
// (HostileImages.swift). The `magpie` command links MagpieOrigin alone.
@_exported public import MagpieOrigin
