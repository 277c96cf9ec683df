"""What leaves the program: the JSON shape, CSV and annotated pictures."""
