"""The event stream: the bus, its subscribers, history, codec, journal, seq numbering and stats."""
