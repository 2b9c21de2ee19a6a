"""Hook files into hooks: the files, their checks, the last accepted copies, the watcher, trust and toggles."""
