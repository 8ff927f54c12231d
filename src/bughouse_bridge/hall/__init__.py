"""The hall: many tables on one secured mosquitto (pure parts).

``broker`` writes the broker's files (configuration, ACL, password lines, box configurations) as
text; ``rounds`` reads round files and pairs tables; ``results`` turns result events into tables.
The shell that writes files, runs ``openssl`` and talks MQTT is ``daemon/hall*.py``.
"""
