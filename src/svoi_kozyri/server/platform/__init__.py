"""The platform around the tables: accounts, players' endpoints, ratings,
profiles, the live lobby and the bots' calibration.
"""
