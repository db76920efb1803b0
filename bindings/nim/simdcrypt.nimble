# Package

version       = "0.1.0"
author        = "simdcrypt"
description   = "Nim binding of simdcrypt's C ABI (libsimdcrypt_capi)"
license       = "MIT"
installFiles  = @["simdcrypt.nim"]

# Dependencies

requires "nim >= 1.6.0"
