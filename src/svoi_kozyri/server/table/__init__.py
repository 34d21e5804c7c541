"""A table in play, without HTTP or SQL of its own: the game rebuilt from its event
log, the replay, per-viewer views, the live table, the bot runner, the scheduler
and the table master.
"""
