module simdcrypt

go 1.21
