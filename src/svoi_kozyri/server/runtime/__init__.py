"""The server's process machinery: worker pools, child server processes, the
garbage-collector policy and the event-loop watchdog.  Knows nothing of tables.
"""
