"""Features built on tables: analysis, the tutorial, same deal compared, the end of
a session and rematches, table chat, records export and card images.
"""
