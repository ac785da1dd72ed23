package main

import "fmt"

import (
	"os/exec"
	shop "github.com/acme/shop/v2"
	. "github.com/acme/dsl"
	_ "embed"
	"gopkg.in/yaml.v3"
	"github.com/mattn/go-isatty"
	"github.com/acme/client-go"
	"github.com/acme/api/v3"
)

func main() {
	fmt.Println(exec.Command("ls"))
}
// expect:
// import fmt @3 alias=fmt
// import os/exec @6 alias=exec
// import github.com/acme/shop/v2 @7 alias=shop
// import github.com/acme/dsl @8 name=*
// import embed @9 -- imported for its side effects: nothing bound
// import gopkg.in/yaml.v3 @10 alias=yaml
// import github.com/mattn/go-isatty @11 alias=isatty
// import github.com/acme/client-go @12 alias=client
// import github.com/acme/api/v3 @13 alias=api
// call main -> fmt.Println/1 @17
// call main -> exec.Command/1 @17
