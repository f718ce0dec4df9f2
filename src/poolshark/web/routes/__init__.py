"""One router per page group: play, spectate, the shared session and meta endpoints, pages."""
