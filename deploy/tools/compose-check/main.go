// compose-check loads a Compose file with compose-go, the reference implementation of the Compose
// Specification that Docker Compose itself uses: it interpolates variables, validates the file against
// the Compose Specification JSON schema embedded in compose-go, checks references (depends_on, networks,
// volumes) and prints the normalized project as JSON on stdout. Exit status 1 with the reason on stderr
// when the file is not valid. Usage: compose-check [-schema] <docker-compose.yml>
//   -schema  print the embedded Compose Specification JSON schema instead.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/schema"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-schema" {
		fmt.Print(schema.Schema)
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check [-schema] <docker-compose.yml>")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	options, err := cli.NewProjectOptions(
		[]string{file},
		cli.WithOsEnv,
		cli.WithWorkingDirectory(filepath.Dir(file)),
		cli.WithName("pilot"),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(false),
	)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
