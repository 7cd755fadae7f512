module box-echo

go 1.24
