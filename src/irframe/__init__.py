"""irframe."""
