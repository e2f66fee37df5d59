"""What a server asks of a person, independent of any UI: the fields of a form, checking answers,
and the answers given when nobody is there (policies)."""
