// Tests reach the loopback server and generated images through MagpieTesting, as before they
// moved to MagpieOrigin (which the `magpie` command links instead of this module).
@_exported public import MagpieOrigin
