"""The core: pure data and rules, no event loop and no files: points, hooks, registry, chain, match, trace."""
