"""The terminal game (``svoi-kozyri play``) and the record viewer (``svoi-kozyri replay``).

A surface: it renders only Observations (``render``), reads forgiving move input
(``inputs``, ``prompter``) and drives a session of hands (``play``).
"""
