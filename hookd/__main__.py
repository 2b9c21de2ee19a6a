from hookd.cli import main

raise SystemExit(main())
