# Helpers the public families share.
def euros: "€" + ((. / 100 | floor) | tostring) + "." + ((. % 100) | pad(2));
def active: map(select((.status // "active") == "active"));
