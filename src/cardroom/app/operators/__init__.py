"""The operator's floor: staff and their log, accounts, tables, the floor's figures and
the integrity monitor."""
