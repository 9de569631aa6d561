"""What answers where an API was expected: the web pages the fake server sends (Reply.page, routes)."""

# What nginx sends when the server behind it is down.
NGINX_502 = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
             "</center>\r\n<hr><center>nginx/1.24.0 (Ubuntu)</center>\r\n</body>\r\n</html>\r\n")
# A web UI's start page where the API was expected (a chat front end on the same port).
WEB_UI = ('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8" />\n<title>Open WebUI</title>\n'
          '<script src="/_app/start.js"></script>\n</head>\n<body><div id="app"></div></body>\n</html>\n')
