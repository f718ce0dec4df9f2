"""The web app: play against any agent, watch agents play (``poolshark web``).

Layers inside: :mod:`.hall` (every table of one game in one engine batch, a readable
mirror per table), :mod:`.sessions` (sessions and their limits, hand histories),
:mod:`.batcher` (agent decisions gathered across sessions per event-loop tick),
:mod:`.views` (what a page sees), :mod:`.routes` (a router per page group), :mod:`.app`
(the FastAPI app) and :mod:`.server` (uvicorn, loopback by default).
"""
