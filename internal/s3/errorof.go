package s3

// ErrorOf returns the status, code and message the S3 endpoint answers
// err with, so that another front end of the object service (the
// console) refuses alike.
func ErrorOf(err error) (status int, code, message string) {
	e := toAPIError(err)
	return e.Status, e.Code, e.Message
}
