"""One module per subcommand; each exposes run_<name>(store, ...) returning an exit code."""
